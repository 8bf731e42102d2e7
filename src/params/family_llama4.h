// Llama 4 (model_types llama4, llama4_text; Scout and Maverick): a decoder whose MoE layers hold
// routed experts, one always-on shared expert and a router, interleaved with dense-MLP layers;
// three layers in four use RoPE with chunked local attention and the fourth is a global NoPE
// layer. The text part of a multimodal config (its text_config) is read; the vision tower is not
// counted.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a `llama4` or `llama4_text` config (transformers/models/llama4/modeling_llama4.py).
/// MoE layers are `moe_layers` when given, else every `interleave_moe_layer_step`-th layer
/// (configuration_llama4.py: layers step-1, 2*step-1, ...). A MoE layer's routed experts and its
/// shared expert have `intermediate_size`, a dense layer's MLP `intermediate_size_mlp`. Chunked
/// (RoPE) layers are those `no_rope_layers` marks 1 (default: all but every
/// `no_rope_layer_interval`-th), or `layer_types`' "chunked_attention" entries. Absent sizes take
/// Llama4TextConfig's defaults except hidden_size, num_hidden_layers and vocab_size, which are
/// required. Returns nullopt with problems for missing or bad sizes, a layer list
/// (`moe_layers`, `no_rope_layers`, `layer_types`) that disagrees with num_hidden_layers or holds
/// an unknown kind, top-k above the experts and KV heads that do not divide the heads.
std::optional<FamilyModel> read_llama4(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
