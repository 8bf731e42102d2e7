// K-EXAONE (Hugging Face model_type exaone_moe; LG AI Research): EXAONE 4.0 attention (grouped
// query, q/k norms, sliding-window layers with full-attention layers between them) and
// DeepSeek-V3-style MoE layers (top-k of `num_experts` experts, `num_shared_experts` shared
// experts, a sigmoid router with a score-correction bias), dense or MoE as `mlp_layer_types`
// lists them (without the list the first `first_k_dense_replace` layers are dense, one by
// default), and `num_nextn_predict_layers` MTP layers. Source:
// transformers/models/exaone_moe/modeling_exaone_moe.py.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads an exaone_moe config: N per docs/active-params.md and the planner's shape. Per layer:
/// attention q H x heads*d, k and v H x kv*d, o heads*d x H (ExaoneMoeAttention, from
/// Exaone4Attention), sliding when `layer_types` says "sliding_attention" (without the list:
/// every layer but each `sliding_window_pattern`-th, as ExaoneMoeConfig fills it; none when
/// there is neither the list nor a `sliding_window`); an MoE ("sparse") layer top-k experts of
/// `moe_intermediate_size`, one shared SwiGLU of `num_shared_experts` x `moe_intermediate_size` and
/// the router H x E (ExaoneMoeSparseMoEBlock, ExaoneMoeTopkRouter); a dense layer a SwiGLU of
/// `intermediate_size` (ExaoneMoeMLP). Left out: input embedding, norms (with the q/k norms),
/// biases (the score-correction bias) and the MTP layers. Returns nullopt with problems for
/// missing or bad sizes, a layer list of the wrong length or with an unknown kind,
/// `first_k_dense_replace` above the layers, top-k above the experts or KV heads that do not
/// divide the heads.
std::optional<FamilyModel> read_exaone_moe(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
