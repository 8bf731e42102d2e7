// The decoder several family readers share: every layer is grouped-query softmax attention
// (full or sliding window) followed by a gated MLP or by top-k routed experts with a router and no
// shared expert. OLMo 2 and 3, OLMoE, Phi-3/Phi-4 and EXAONE 4.0 are this decoder with different
// norms, which the convention of docs/active-params.md leaves out; each family's reader
// (src/params/family_<name>.cc) reads its config into a GqaDecoder and builds N and the shape here.
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

/// One such decoder's sizes, as its reader found them.
struct GqaDecoder {
  std::string model_type;
  Shape s;  ///< hidden size, decoder layers, vocabulary
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0;
  BlockParams attention;  ///< one layer's q, k, v and o weights and their names
  /// Per layer: true for a sliding-window layer; empty when every layer attends to all tokens.
  std::vector<bool> sliding;
  std::int64_t sliding_window = 0;  ///< tokens; read only when a layer slides
  /// Dense models: the gated MLP's width and its matrices' names ("gate+up 4096x22016 and ...").
  std::int64_t dense_ffn = 0;
  std::string mlp_detail;
  /// Mixture-of-experts models (experts > 0): routed experts, top-k and one expert's width.
  std::int64_t experts = 0, experts_per_token = 0, expert_ffn = 0;
  bool tied_embeddings = false;
  /// Multi-token-prediction layers (left out of N, kept in the shape for memory); build_gqa_decoder
  /// adds them to `left_out`.
  std::int64_t mtp_layers = 0;
  std::vector<std::string> left_out;  ///< what the convention leaves out for this model
};

/// Reads the sizes every such config has: `hidden_size`, `num_hidden_layers` (1 to 100,000: the
/// layers are walked one by one), `vocab_size` and `tie_word_embeddings` (default false).
void read_decoder_sizes(const HfConfig& c, GqaDecoder& d);

/// Reads the attention: `num_attention_heads`, `num_key_value_heads` (default: the heads) and
/// `head_dim` (default hidden / heads, as the modeling files compute it), and sets `d.attention`
/// from gqa(). Sizes that contradict each other (KV heads not dividing the heads; a hidden size
/// that is no multiple of the heads when `head_dim` is absent) are problems naming the field.
void read_gqa_attention(const HfConfig& c, GqaDecoder& d, Problems& problems);

/// Per-layer sliding flags from `layer_types` ("full_attention" or "sliding_attention", one per
/// layer, as transformers' configuration files write them): an empty list when the config has
/// none, nullopt with a problem when it lists another number of layers or another kind.
std::optional<std::vector<bool>> sliding_from_layer_types(const HfConfig& c, std::int64_t layers,
                                                          Problems& problems);

/// Checks that top-k does not exceed the routed experts; false with a problem at `field`.
bool check_experts_per_token(const HfConfig& c, const GqaDecoder& d, const std::string& field,
                             Problems& problems);

/// N with its breakdown ("attention", "dense MLP" or "routed experts" and "router", "output
/// layer") and the planner's shape of `d`. Returns nullopt when the reader added problems past
/// the first `problems_before` or `c` recorded any (copied into `problems`), or when N does not
/// fit in int64.
std::optional<FamilyModel> build_gqa_decoder(const HfConfig& c, const GqaDecoder& d,
                                             std::size_t problems_before, Problems& problems);

}  // namespace openrecipes
