// Gemma 4 (model_types gemma4, gemma4_text): Gemma 3's sliding/global decoder with global layers
// of their own head size and KV heads (keys doubling as values when `attention_k_eq_v`), the last
// `num_kv_shared_layers` layers reusing earlier layers' keys and values, per-layer embeddings
// (PLE) on the small models and, with `enable_moe_block`, routed experts beside the dense MLP.
// The text part of a multimodal config (its text_config) is read; vision and audio towers are not
// counted.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a `gemma4` or `gemma4_text` config (transformers/models/gemma4/modeling_gemma4.py,
/// generated from modular_gemma4.py). Per layer (by `layer_types`): q and o, and k and v unless
/// the layer shares KV (k only on a global layer with `attention_k_eq_v`), with `global_head_dim`
/// and `num_global_key_value_heads` on global layers; the GeGLU MLP (twice as wide on KV-sharing
/// layers with `use_double_wide_mlp`); with PLE (`hidden_size_per_layer_input` > 0) the layer's
/// per_layer_input_gate and per_layer_projection and, once, per_layer_model_projection; with
/// `enable_moe_block` the top-k routed experts (`moe_intermediate_size`) and the router, the
/// dense MLP then counting as the shared expert (as Megatron-Bridge's gemma4_bridge.py maps it).
/// Returns nullopt with problems for missing or bad sizes, `layer_types` missing, of the wrong
/// length or with an unknown kind, more KV-sharing layers than can share, KV heads that do not
/// divide the heads and top-k above the experts.
std::optional<FamilyModel> read_gemma4(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
