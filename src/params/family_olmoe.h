// OLMoE (model_type olmoe; Muennighoff et al. 2024, "OLMoE: Open Mixture-of-Experts Language
// Models", arXiv:2409.02060): every layer is grouped-query attention with full-width q and k
// RMSNorms followed by top-k of `num_experts` SwiGLU experts, with no shared expert
// (transformers/models/olmoe/modeling_olmoe.py).
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads an olmoe config. Counted per layer (modeling_olmoe.py, OlmoeAttention and
/// OlmoeSparseMoeBlock): q_proj H x heads*head_dim, k_proj and v_proj H x kv_heads*head_dim,
/// o_proj heads*head_dim x H; the router (gate) H x num_experts; `num_experts_per_tok` experts,
/// each gate_proj and up_proj H x intermediate_size and down_proj intermediate_size x H; then
/// lm_head H x vocab. Left out: the input embedding, the q_norm and k_norm weights and the other
/// RMSNorms (and biases, when `attention_bias` is set). Returns nullopt with problems naming the
/// field for a missing or bad size, top-k above the experts, or sizes that contradict each other.
std::optional<FamilyModel> read_olmoe(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
