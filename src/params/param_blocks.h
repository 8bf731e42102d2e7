// The weight matrices of the layer parts many model families share, counted once here so that
// every family reader (src/params/family_*.cc) and the built-in families add them up the same
// way. Counts are parameters (weights); biases and norms are left out, by the convention of
// docs/active-params.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "params/active_params.h"
#include "params/hf_config.h"
#include "params/model_shape.h"

namespace openrecipes {

/// "ROWSxCOLUMNS", the form a component's detail names a matrix in.
std::string dims(std::int64_t rows, std::int64_t columns);

/// Adds up components by name and per-layer size, keeping first-seen order: a model's layers are
/// walked one by one and each adds its parts (`add("attention", 41943040, "q 4096x4096 + ...")`).
class Tally {
 public:
  /// One more layer holding `name` with `per_layer` parameters; `detail` names its matrices.
  void add(const std::string& name, std::int64_t per_layer, const std::string& detail);
  /// The components, in first-seen order.
  std::vector<ParamComponent> take() { return std::move(components_); }

 private:
  std::vector<ParamComponent> components_;
};

/// The sizes every family has: hidden size, decoder layers (MTP excluded), vocabulary.
struct Shape {
  std::int64_t hidden = 0, layers = 0, vocab = 0;
};

/// A weight count and the matrices it holds ("q 4096x4096 + k 4096x1024 + ...").
using BlockParams = std::pair<std::int64_t, std::string>;

/// Grouped-query attention: q (doubled by an output gate, as in Qwen3-Next and Qwen3.5), k, v
/// and o, from `num_attention_heads`, `num_key_value_heads` (default: the heads) and `head_dim`
/// (default hidden / heads). Bad or missing sizes are recorded on `c`.
BlockParams gqa(const HfConfig& c, const Shape& s, bool output_gate);

/// Multi-head latent attention (DeepSeek-V2/V3; DeepSeek-AI 2024, arXiv:2405.04434, section
/// 2.1): q (or q_a and q_b with `q_lora_rank`), kv_a, kv_b and o.
BlockParams mla(const HfConfig& c, const Shape& s);

/// Gated DeltaNet (Qwen3-Next, Qwen3.5; modeling_qwen3_next.py): qkv H->2K+V, z H->V, b and a
/// H->value heads, out V->H and the depthwise convolution over the 2K+V channels (A_log and
/// dt_bias are left out).
BlockParams gated_deltanet(const HfConfig& c, const Shape& s);

/// The planner's shape as every family reader starts it: `count`'s model_type and N, the layers,
/// hidden size and vocabulary of `s`, `tied` embeddings, and the vocab x hidden input embedding
/// and output layer. The reader fills in its attention, mixer and MLP sizes.
ModelShape shape_base(const ActiveParamCount& count, const Shape& s, bool tied);

/// How a count's `left_out` names `layers` multi-token-prediction layers: "1 multi-token-prediction
/// layer", "2 multi-token-prediction layers" (docs/active-params.md: MTP layers are left out of N).
std::string mtp_layers_left_out(std::int64_t layers);

/// A gated (SwiGLU/GeGLU) MLP: gate and up hidden x ffn, down ffn x hidden, = 3 x hidden x ffn.
std::int64_t gated_mlp(std::int64_t hidden, std::int64_t ffn);

/// N as the components' sum, or nullopt with a problem at `c`'s file when it does not fit in
/// int64 (sizes are bounded one by one, not their products: the sum is taken in 128 bits).
std::optional<std::int64_t> sum_components(const std::vector<ParamComponent>& components,
                                           const HfConfig& c, Problems& problems);

}  // namespace openrecipes
