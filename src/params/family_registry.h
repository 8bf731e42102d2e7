// The model families read by a reader of their own (src/params/family_*.cc), one per Hugging
// Face model_type. The families built into active_params.cc (llama, mistral, qwen2/3, mixtral,
// qwen2/3_moe, gpt_oss, deepseek_v2/v3, qwen3_next, qwen3_5) predate the registry; a new family
// is a reader here. Both follow the one convention of docs/active-params.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "params/active_params.h"
#include "params/hf_config.h"
#include "params/model_shape.h"

namespace openrecipes {

/// What a family reader returns: N with its breakdown (what `active-params` prints) and the
/// planner's sizes of the same model (what `plan` and `recommend` read).
struct FamilyModel {
  ActiveParamCount count;
  ModelShape shape;  ///< `name` is left empty: the caller names the model
};

/// Reads one family's config (the text part: HfConfig follows `text_config`). Returns nullopt
/// with problems naming the config's file, line and field for a missing field, a wrong type, a
/// size below its minimum or sizes that contradict each other.
using FamilyReader = std::optional<FamilyModel> (*)(const HfConfig& config, Problems& problems);

/// The reader registered for `model_type`, or null when there is none.
FamilyReader family_reader(const std::string& model_type);

/// The model_types with a registered reader, sorted.
std::vector<std::string> family_reader_types();

}  // namespace openrecipes
