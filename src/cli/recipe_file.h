// Reading one recipe file for a command that works on it (measure, rows verify, score, check,
// export): the catalog from `--root` or found upward, then catalog/recipe_file.h.
#pragma once

#include <optional>
#include <string>

#include "base/problem.h"
#include "catalog/recipe_file.h"
#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Finds the catalog root (resolve_root) and reads the recipe at `path` with
/// openrecipes::read_recipe_file. Returns nullopt with problems (file:line:col) when the recipe or
/// the catalog is not valid; with no problems when there is no catalog root (resolve_root has said
/// why).
std::optional<RecipeFile> read_recipe_file(const GlobalOptions& global, const std::string& path,
                                           Problems& problems);

}  // namespace openrecipes::cli
