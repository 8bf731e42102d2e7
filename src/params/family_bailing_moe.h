// Ling and Ling 2.0 (Hugging Face model_types bailing_moe and bailing_moe_v2; inclusionAI / Ant
// Group): one fused query_key_value projection and a dense output projection, the first
// `first_k_dense_replace` layers dense and the rest top-k of `num_experts` experts with
// `num_shared_experts` shared experts, and (Ling 2.0) `num_nextn_predict_layers` MTP layers.
// Sources: modeling_bailing_moe.py (Ling-lite, Ling-plus) and modeling_bailing_moe_v2.py (Ling
// 2.0; inclusionAI/Ling-V2 models/modeling_bailing_moe_v2.py), shipped with the checkpoints.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a bailing_moe or bailing_moe_v2 config: N per docs/active-params.md and the planner's
/// shape. Per layer: query_key_value H x (heads + 2 kv) d and dense heads*d x H
/// (BailingMoeV2Attention); layer i is MoE when i >= `first_k_dense_replace` (default 0), as
/// BailingMoeV2DecoderLayer decides, holding top-k experts of `moe_intermediate_size`, one shared
/// SwiGLU of `num_shared_experts` x the expert width (`moe_shared_expert_intermediate_size` when
/// given) and the router H x E (BailingMoeV2Gate); a dense layer a SwiGLU of
/// `intermediate_size`. Left out: input embedding, norms (with the q/k norms), biases (qkv, the
/// router's expert bias) and the MTP layers. Returns nullopt with problems for missing or bad
/// sizes, `first_k_dense_replace` above the layers, top-k above the experts or KV heads that do
/// not divide the heads.
std::optional<FamilyModel> read_bailing_moe(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
