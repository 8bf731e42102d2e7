// The `workload.dataset` lines a rows build prints for a recipe (the bundled recipes' layout),
// ready to paste.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rows/rows_builder.h"

namespace openrecipes {

/// `rows_sha256:` and the `build:` mapping, indented to sit under `workload.dataset` (4 and 6
/// spaces). Strings YAML would misread are double-quoted; the ratio has 3 decimals, as in the
/// bundled recipes.
std::string dataset_block_yaml(const RowsBuildResult& result);

/// The same fields as JSON: {"rows_sha256": ..., "build": {...}}, plus the build's counts.
nlohmann::ordered_json dataset_block_json(const RowsBuildResult& result);

}  // namespace openrecipes
