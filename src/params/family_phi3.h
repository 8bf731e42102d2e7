// Phi-3 and Phi-4 (model_type phi3; Microsoft, "Phi-3 Technical Report", arXiv:2404.14219, and
// "Phi-4 Technical Report", arXiv:2412.08905): a Llama-like decoder whose q, k and v projections
// are one fused qkv_proj and whose gate and up projections are one gate_up_proj
// (transformers/models/phi3/modeling_phi3.py). Fused or not, the matrices a token passes
// through are the same.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a phi3 config. Counted per layer (modeling_phi3.py, Phi3Attention and Phi3MLP):
/// qkv_proj H x (heads + 2 kv_heads) * head_dim, o_proj heads*head_dim x H, gate_up_proj
/// H x 2 intermediate_size, down_proj intermediate_size x H; then lm_head H x vocab (once, also
/// when tied, as in Phi-4-mini). Left out: the input embedding and the RMSNorms. When
/// `sliding_window` is set, every layer attends within it (Phi3Attention passes the one window to
/// every layer). Returns nullopt with problems naming the field for a missing or bad size or
/// sizes that contradict each other.
std::optional<FamilyModel> read_phi3(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
