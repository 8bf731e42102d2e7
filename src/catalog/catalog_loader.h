// Loads a catalog's shared files (models.yaml, gpus.yaml, authors.yaml) with their schemas.
#pragma once

#include <filesystem>
#include <optional>

#include "base/problem.h"
#include "catalog/catalog.h"
#include "catalog/schema_check.h"

namespace openrecipes {

/// A loaded catalog and the recipe schema to check recipes with.
struct LoadedCatalog {
  Catalog catalog;
  SchemaChecker recipe_schema;
};

/// Reads the YAML file at `path` strictly and checks it against the schema at `schema_path`.
/// Returns nullopt, adding problems, when either is missing, is not valid YAML, or the file does
/// not conform.
std::optional<YamlDocument> load_checked_file(const std::string& path,
                                              const std::string& schema_path, Problems& problems);

/// Reads `<root>/<name>` (e.g. `site.yaml`) and checks it against
/// `<root>/schema/<stem>.schema.yaml`. Returns nullopt, adding problems, when either is missing,
/// is not valid YAML, or the file does not conform.
std::optional<YamlDocument> load_checked_catalog_file(const std::filesystem::path& root,
                                                      const std::string& name, Problems& problems);

/// Reads `<root>/models.yaml`, `gpus.yaml` and `authors.yaml`, checks each against
/// `<root>/schema/<name>.schema.yaml`, checks that names and slugs are unique, that no model slug
/// looks like a site file or is `recipes` (rule catalog.slug), that a model without a revision
/// has a non-empty models/<slug>/source.yaml (rule catalog.config_source), counts each
/// model's N from `<root>/models/<slug>/config.json`, and loads `schema/recipe.schema.yaml`.
/// Returns nullopt, with problems naming file, line and field, when any of them is missing or
/// invalid (recipes cannot be checked against a broken catalog).
std::optional<LoadedCatalog> load_catalog(const std::filesystem::path& root, Problems& problems);

}  // namespace openrecipes
