// A decoder-only mixture-of-experts model of the common form: every layer holds grouped-query
// softmax attention (full or sliding-window) and a SwiGLU MLP that is either dense or routed
// experts (top-k of E, with shared experts beside them and a linear router). GLM-4.5
// (glm4_moe), ERNIE-4.5 MoE (ernie4_5_moe), Ling (bailing_moe, bailing_moe_v2), Hy3 (hy_v3) and
// K-EXAONE (exaone_moe) are all of this form and differ only in which config fields say which
// layer is dense; their readers (src/params/family_*.cc) fill a MoeDecoder and this file counts
// it, by the convention of docs/active-params.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"
#include "params/param_blocks.h"

namespace openrecipes {

/// The sizes of one MoE decoder, read from its config by a family reader.
struct MoeDecoder {
  std::string model_type;
  Shape s;  ///< hidden size, decoder layers (MTP excluded), vocabulary
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0;
  std::string attention_detail;     ///< the attention's matrices, as the modeling code names them
  std::vector<bool> moe;            ///< per layer: true = routed experts, false = dense MLP
  std::vector<bool> sliding;        ///< per layer: sliding-window attention (empty: none)
  std::int64_t sliding_window = 0;  ///< tokens, when any layer slides
  std::int64_t dense_ffn = 0;       ///< intermediate size of a dense layer's MLP
  std::int64_t experts = 0, top_k = 0, expert_ffn = 0;
  std::string top_k_field = "num_experts_per_tok";  ///< the config field of top_k, for problems
  std::int64_t shared_ffn = 0;  ///< one SwiGLU of this width holds all shared experts; 0: none
  std::int64_t mtp_layers = 0;  ///< multi-token-prediction layers (left out of N)
  bool tied = false;            ///< input embedding and output layer share one matrix
  std::vector<std::string> left_out;  ///< what the convention leaves out for this model
};

/// Reads `hidden_size`, `num_hidden_layers` (at most 100,000: layers are walked one by one) and
/// `vocab_size`; bad or missing sizes are recorded on `c`.
Shape read_decoder_shape(const HfConfig& c);

/// Reads `num_attention_heads`, `num_key_value_heads` (default: the heads) and `head_dim`
/// (default hidden / heads) into `d`, and names the attention's matrices q, k, v and o (the
/// Llama-style q_proj, k_proj, v_proj, o_proj of the families here); bad sizes go on `c`.
void read_gqa_sizes(const HfConfig& c, MoeDecoder& d);

/// What the convention leaves out of each model here: the input embedding, norms and biases,
/// and its `mtp_layers` multi-token-prediction layers when it has any.
std::vector<std::string> moe_decoder_left_out(std::int64_t mtp_layers);

/// Copies the problems recorded on `c` into `problems` and returns nullopt: how a reader gives
/// up after reads that failed.
std::optional<FamilyModel> config_problems(const HfConfig& c, Problems& problems);

/// Counts N and fills the planner's shape for `d`. Per layer (transformers' Llama-style
/// attention and Mixtral/DeepSeek-style MoE block, e.g. transformers/models/deepseek_v3/
/// modeling_deepseek_v3.py): attention q H x heads*d, k and v H x kv*d, o heads*d x H; a dense
/// layer's SwiGLU 3 x H x ffn; an MoE layer's top-k experts k x 3 x H x expert_ffn, shared
/// experts 3 x H x shared_ffn and router H x E; the output layer H x V once (even when tied).
/// Checks first that the KV heads divide the heads, that top-k is at most the experts and that
/// the layer lists have one entry per layer; returns nullopt with problems at `c`'s file when
/// they do not, or when `c` holds problems from earlier reads.
std::optional<FamilyModel> build_moe_decoder(const HfConfig& c, const MoeDecoder& d,
                                             Problems& problems);

}  // namespace openrecipes
