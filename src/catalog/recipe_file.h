// Reading one recipe file for a command that works on it (measure, rows verify, score, check,
// export): the catalog it belongs to, then the file as strict YAML, then the catalog's recipe
// schema (schema/recipe.schema.yaml).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "base/problem.h"
#include "base/yaml_document.h"
#include "catalog/catalog_loader.h"
#include "catalog/recipe.h"

namespace openrecipes {

/// A recipe read and schema-checked, with its document (for positions) and the loaded catalog.
struct RecipeFile {
  YamlDocument document;
  Recipe recipe;
  LoadedCatalog catalog;
};

/// Loads the catalog at `root` (load_catalog), then reads the recipe at `path` (at most
/// kMaxCatalogFileBytes) and checks it against the catalog's recipe schema. Returns nullopt with
/// problems (file:line:col, field) when the catalog or the recipe cannot be read or is not valid.
std::optional<RecipeFile> read_recipe_file(const std::filesystem::path& root,
                                           const std::string& path, Problems& problems);

}  // namespace openrecipes
