// Hy3 (Hugging Face model_type hy_v3; Tencent Hunyuan): grouped-query attention with q/k norms,
// dense or MoE layers as `mlp_layer_types` lists them ("dense" or "sparse"; without the list
// the first `first_k_dense_replace` layers are dense, one by default), each MoE layer top-k of
// `num_experts` experts with `num_shared_experts` shared experts and a sigmoid router, and
// `num_nextn_predict_layers` MTP layers. Source: transformers/models/hy_v3/modeling_hy_v3.py.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a hy_v3 config: N per docs/active-params.md and the planner's shape. Per layer:
/// attention q H x heads*d, k and v H x kv*d, o heads*d x H (HYV3Attention); an MoE ("sparse")
/// layer top-k experts of `moe_intermediate_size`, one shared SwiGLU of `num_shared_experts` x
/// `moe_intermediate_size` and the router H x E (HYV3MoE, HYV3TopKRouter); a dense layer a
/// SwiGLU of `intermediate_size` (HYV3MLP). Left out: input embedding, norms (with the q/k
/// norms), biases (the router's score-correction bias) and the MTP layers. Returns nullopt with
/// problems for missing or bad sizes, an `mlp_layer_types` of the wrong length or with an unknown
/// kind, `first_k_dense_replace` above the layers, top-k above the experts or KV heads that do
/// not divide the heads.
std::optional<FamilyModel> read_hy_v3(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
