// EXAONE 4.0 (model_type exaone4; LG AI Research 2025, "EXAONE 4.0", arXiv:2507.11407): a
// Llama-like decoder with hybrid attention, sliding-window (local) and full (global) layers in a
// 3:1 ratio for the 32B model, q and k RMSNorms per head and the norms after the attention and the
// MLP (transformers/models/exaone4/modular_exaone4.py).
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads an exaone4 config, or EXAONE 4.5's text model (exaone4_5_text: the same Exaone4ForCausalLM
/// layers plus `num_nextn_predict_layers` MTP layers, left out of N). Counted per layer
/// (modular_exaone4.py, Exaone4Attention and the Llama MLP it reuses): q_proj H x heads*head_dim,
/// k_proj and v_proj H x kv_heads*head_dim, o_proj heads*head_dim x H, gate_proj and up_proj H x
/// intermediate_size, down_proj intermediate_size x H; then lm_head H x vocab (once, also when
/// tied, as in the 1.2B model). Left out: the input embedding, the q_norm and k_norm weights and
/// the other RMSNorms. Which layers slide comes from `layer_types`; without it, as Exaone4Config
/// does: none when `sliding_window` is null, else every `sliding_window_pattern`-th layer (an
/// integer, default 4) is full attention and the others slide. Returns nullopt with problems naming
/// the field for a missing or bad size, a `layer_types` of another length or kind, or sizes that
/// contradict each other.
std::optional<FamilyModel> read_exaone4(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
