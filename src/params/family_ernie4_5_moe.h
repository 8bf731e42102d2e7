// ERNIE-4.5 MoE (Hugging Face model_type ernie4_5_moe; Baidu): Llama-style grouped-query
// attention and, on the layers from `moe_layer_start_index` to `moe_layer_end_index` every
// `moe_layer_interval`, top-`moe_k` of `moe_num_experts` experts with `moe_num_shared_experts`
// shared experts; the other layers dense. Source:
// transformers/models/ernie4_5_moe/modeling_ernie4_5_moe.py (Ernie4_5_MoeDecoderLayer).
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads an ernie4_5_moe config: N per docs/active-params.md and the planner's shape. Layer i is
/// MoE when (i + 1) % moe_layer_interval == 0 and moe_layer_start_index <= i <=
/// moe_layer_end_index (-1: the last layer), as Ernie4_5_MoeDecoderLayer decides; an MoE layer
/// holds top-`moe_k` experts of `moe_intermediate_size`, one shared SwiGLU of
/// `moe_num_shared_experts` x `moe_intermediate_size` and the router H x E; a dense layer a SwiGLU
/// of `intermediate_size`. Defaults are Ernie4_5_MoeConfig's (start 1, end -1, interval 1, two
/// shared experts, tied embeddings). Left out: input embedding, norms, biases (`use_bias`, the
/// router's moe_statics correction bias) and the `num_nextn_predict_layers` MTP layers. Returns
/// nullopt with problems for missing or bad sizes, an MoE range outside the layers, `moe_k` above
/// the experts or KV heads that do not divide the heads.
std::optional<FamilyModel> read_ernie4_5_moe(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
