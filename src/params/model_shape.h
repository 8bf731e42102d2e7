// The planner's view of a model: the sizes that set its memory, FLOPs and communication, read
// from a Hugging Face config.json (a catalog model's is models/<slug>/config.json).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/problem.h"
#include "params/active_params.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Sizes of one model. Parameter counts are per layer and come from the active-parameter counter
/// (src/params), so that the planner and `active-params` share one set of formulas.
struct ModelShape {
  std::string name;        ///< catalog name, or the config's model_type for a bare config
  std::string model_type;  ///< Hugging Face model_type
  int layers = 0;          ///< decoder layers, MTP layers excluded
  int hidden_size = 0;
  std::int64_t vocab_size = 0;
  bool tied_embeddings = false;
  int mtp_layers =
      0;  ///< multi-token-prediction layers (memory only; the protocol trains without MTP loss)

  // Softmax attention (full and sliding-window layers).
  int attention_heads = 0;
  int kv_heads = 0;  ///< query groups; TP must divide it
  int head_dim = 0;
  int attention_layers = 0;       ///< layers with softmax attention (full or sliding)
  int sliding_window_layers = 0;  ///< of those, layers with a sliding window
  int sliding_window = 0;         ///< tokens; 0 when none

  // Multi-head latent attention (DeepSeek-V2/V3, Kimi K2, GLM-5; DeepSeek-AI 2024,
  // arXiv:2405.04434, sec. 2.1): the low-rank query and key/value latents and the per-head widths
  // of the up-projections; zero for other attention. head_dim is the query/key width (nope + rope).
  int mla_q_lora_rank = 0;    ///< query latent width; 0 when the query is not compressed
  int mla_kv_lora_rank = 0;   ///< key/value latent width
  int mla_v_head_dim = 0;     ///< value width per head
  int mla_rope_head_dim = 0;  ///< of head_dim, the rotary part (shared by the heads' keys)
  /// True for multi-head latent attention.
  bool has_mla() const { return mla_kv_lora_rank > 0; }

  // Gated DeltaNet (linear attention) layers; zero when the model has none.
  int linear_attention_layers = 0;
  int linear_key_heads = 0, linear_value_heads = 0;
  int linear_key_head_dim = 0, linear_value_head_dim = 0;

  // Mamba-2 (state-space duality) layers; zero when the model has none (Dao and Gu 2024,
  // arXiv:2405.21060; Megatron-Core megatron/core/ssm/mamba_mixer.py).
  int mamba_layers = 0;
  int mamba_heads = 0;        ///< SSM heads; TP must divide them
  int mamba_head_dim = 0;     ///< channels per head
  int mamba_groups = 0;       ///< B/C groups (n_groups); TP must divide them
  int mamba_state_size = 0;   ///< d_state
  int mamba_conv_kernel = 0;  ///< depthwise convolution width
  /// The layer order of a hybrid model in Megatron-LM's --hybrid-override-pattern letters, one
  /// per layer: M Mamba-2, * attention, - MLP, E MoE (megatron/core/ssm/mamba_hybrid_layer_
  /// allocation.py); empty for a model whose every layer has the same parts.
  std::string hybrid_layer_pattern;

  // DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2, GLM-5; DeepSeek-AI 2025,
  // DeepSeek-V3.2-Exp report, section 2.1); zero when the model has none. It scores every earlier
  // token per query and keeps the top `indexer_top_k` for the main attention.
  int indexer_heads = 0;
  int indexer_head_dim = 0;
  int indexer_top_k = 0;  ///< keys each query attends to

  // MLP.
  bool gated_mlp = true;     ///< gate, up and down (SwiGLU); false: up and down (squared ReLU)
  int dense_mlp_layers = 0;  ///< layers with a dense MLP
  int dense_ffn_hidden_size = 0;
  int moe_layers = 0;  ///< layers with routed experts
  int experts = 0;     ///< routed experts per MoE layer; EP must divide it
  int experts_per_token = 0;
  int expert_ffn_hidden_size = 0;
  int shared_expert_ffn_hidden_size = 0;

  // Parameters per layer (from the counter).
  std::int64_t attention_params = 0;         ///< per softmax-attention layer
  std::int64_t linear_attention_params = 0;  ///< per Gated DeltaNet layer
  std::int64_t mamba_params = 0;             ///< per Mamba-2 layer
  std::int64_t indexer_params = 0;           ///< per softmax-attention layer with an indexer
  std::int64_t dense_mlp_params = 0;         ///< per dense-MLP layer
  std::int64_t expert_params = 0;            ///< one routed expert
  std::int64_t shared_expert_params = 0;     ///< per MoE layer, with its gate
  std::int64_t router_params = 0;            ///< per MoE layer
  std::int64_t embedding_params = 0;         ///< input embedding (vocab x hidden)
  std::int64_t output_params = 0;            ///< output layer (vocab x hidden); 0 when tied

  std::int64_t active_params = 0;  ///< N, active parameters per token (issue 4's convention)

  /// True when the model has routed experts.
  bool is_moe() const { return experts > 0; }
  /// All weights of the model (embedding, every layer, every expert, output layer), MTP excluded.
  /// Norms and biases are left out (under 0.01% of any catalog model). A layer holds any of a
  /// mixer (softmax attention, Gated DeltaNet or Mamba-2) and an MLP (dense or MoE): nemotron_h's
  /// layers hold one each, so the mixer and MLP layer counts need not equal `layers`.
  std::int64_t total_params() const;
  /// Weights of one average decoder layer outside the routed experts (attention, dense or shared
  /// MLP, router), averaged over the layer kinds; for memory per pipeline stage.
  double dense_params_per_layer() const;
  /// Routed-expert weights of one average decoder layer (experts x one expert, averaged over
  /// layers).
  double expert_params_per_layer() const;

  /// Every field equal (C++20 defaulted comparison): the same inputs to the planner.
  bool operator==(const ModelShape&) const = default;
};

/// Sets `shape`'s attention for multi-head latent attention from `config` (num_attention_heads,
/// q_lora_rank (0 or absent: none), kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim):
/// every head has its own decompressed key and value, so kv_heads = heads, and head_dim is the
/// nope plus rope parts. Raises HfConfigError (via HfConfig) on a missing or out-of-range field.
void read_mla_attention(const HfConfig& config, ModelShape& shape);

/// Reads the shape from a parsed config. Returns nullopt with problems (file, line, field) when
/// the counter rejects the config (see count_active_params) or a size the planner needs is missing.
std::optional<ModelShape> model_shape_from_config(const HfConfig& config, const std::string& name,
                                                  Problems& problems);

/// Reads `path` (a config.json or a folder holding one) and returns its shape, as above; a missing
/// or unreadable file is a problem too. `name` names the model in output (empty: the model_type).
std::optional<ModelShape> model_shape_from_file(const std::string& path, const std::string& name,
                                                Problems& problems);

}  // namespace openrecipes
