// Gemma 2 and Gemma 3 (model_types gemma2, gemma3, gemma3_text): dense decoders whose layers
// alternate sliding-window and global attention, with a head size set apart from hidden / heads,
// a GeGLU MLP and the output layer tied to the input embedding. The text part of a multimodal
// Gemma 3 config (its text_config) is read; the vision tower is not counted.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a `gemma2` config (transformers/models/gemma2/modeling_gemma2.py). Fields a Gemma 2
/// config may leave out take Gemma2Config's defaults (configuration_gemma2.py: 8 heads, 4 KV
/// heads, head_dim 256, vocabulary 256000, window 4096, tied embeddings); `hidden_size`,
/// `intermediate_size` and `num_hidden_layers` are required. Layers are listed by `layer_types`
/// when given, else even layers (0, 2, ...) slide and odd layers are global. Returns nullopt with
/// problems for missing or bad sizes, a `layer_types` of the wrong length or with an unknown kind,
/// and KV heads that do not divide the heads.
std::optional<FamilyModel> read_gemma2(const HfConfig& config, Problems& problems);

/// Reads a `gemma3` or `gemma3_text` config (transformers/models/gemma3/modeling_gemma3.py),
/// as read_gemma2 but with Gemma3TextConfig's defaults (configuration_gemma3.py: vocabulary
/// 262208, window 4096, `sliding_window_pattern` 6): without `layer_types`, layer i is global when
/// (i + 1) is a multiple of the pattern and slides otherwise (5 sliding to 1 global). A pattern
/// below 1 is a problem too.
std::optional<FamilyModel> read_gemma3(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
