// Reading one recipe file for a command that works on it (rows verify, score, check): strict
// YAML, then the catalog's recipe schema.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "base/problem.h"
#include "catalog/recipe.h"
#include "base/yaml_document.h"
#include "cli/cli_options.h"
#include "catalog/catalog_loader.h"

namespace openrecipes::cli {

/// A recipe read and schema-checked, with its document (for positions) and the loaded catalog.
struct RecipeFile {
  YamlDocument document;
  Recipe recipe;
  LoadedCatalog catalog;
};

/// Loads the catalog (from `--root` or found upward), then reads and schema-checks the recipe at
/// `path`. Returns nullopt with problems (file:line:col) when the recipe or the catalog is not
/// valid; with no problems when there is no catalog root (resolve_root has said why).
std::optional<RecipeFile> read_recipe_file(const GlobalOptions& global, const std::string& path, Problems& problems);

}  // namespace openrecipes::cli
