// GLM-4.5, GLM-4.6 and GLM-4.7 (Hugging Face model_type glm4_moe; Zhipu AI / Z.ai): grouped-query
// attention with q/k/v biases and optional q/k norms and partial rotary embedding, the first
// `first_k_dense_replace` layers dense, the rest DeepSeek-V3-style MoE layers (sigmoid router with
// a score-correction bias, `n_shared_experts` shared experts), and `num_nextn_predict_layers`
// MTP layers. Source: transformers/models/glm4_moe/modeling_glm4_moe.py.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a glm4_moe config: N per docs/active-params.md and the planner's shape. Per layer:
/// attention q H x heads*d, k and v H x kv*d, o heads*d x H (Glm4MoeAttention); layers below
/// `first_k_dense_replace` a dense SwiGLU of `intermediate_size` (Glm4MoeMLP); the others top-k
/// of `n_routed_experts` experts of `moe_intermediate_size`, one shared SwiGLU of
/// `n_shared_experts` x `moe_intermediate_size` and the router H x E (Glm4MoeMoE,
/// Glm4MoeTopkRouter). Left out: input embedding, norms (with the q/k norms), biases (q/k/v and
/// the router's score-correction bias) and the MTP layers. Returns nullopt with problems (file,
/// field, expected, found) for missing or bad sizes, `first_k_dense_replace` above the layers,
/// top-k above the experts or KV heads that do not divide the heads.
std::optional<FamilyModel> read_glm4_moe(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
