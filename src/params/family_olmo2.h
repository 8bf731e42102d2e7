// OLMo 2 (model_type olmo2; Ai2, OLMo Team 2024, "2 OLMo 2 Furious", arXiv:2501.00656): a
// Llama-like decoder whose layers normalise the attention and MLP outputs and the full query and
// key projections (transformers/models/olmo2/modeling_olmo2.py).
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads an olmo2 config. Counted per layer (modeling_olmo2.py, Olmo2Attention and Olmo2MLP):
/// q_proj H x heads*head_dim, k_proj and v_proj H x kv_heads*head_dim, o_proj heads*head_dim x H,
/// gate_proj and up_proj H x intermediate_size, down_proj intermediate_size x H; then lm_head
/// H x vocab. Left out: the input embedding, the q_norm and k_norm weights and the post-attention,
/// post-feedforward and final RMSNorms. Returns nullopt with problems naming the field for a
/// missing or bad size or sizes that contradict each other.
std::optional<FamilyModel> read_olmo2(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
