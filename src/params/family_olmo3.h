// OLMo 3 (model_type olmo3; Ai2, OLMo Team 2025, "Olmo 3"): OLMo 2's layers
// (src/params/family_olmo2.h) with a sliding window on three layers in four
// (transformers/models/olmo3/modular_olmo3.py).
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads an olmo3 config. The matrices are OLMo 2's (q, k, v, o; gate, up, down; lm_head; see
/// read_olmo2); the norms, q_norm and k_norm included, are left out. Which layers slide comes from
/// `layer_types`, or, when absent, from Olmo3Config's default (modular_olmo3.py): every
/// fourth layer full attention, the others sliding; `sliding_window` (tokens, default 4096 as
/// there) sizes the window. Returns nullopt with problems naming the field for a missing or bad
/// size, a `layer_types` of another length or kind, or sizes that contradict each other.
std::optional<FamilyModel> read_olmo3(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
