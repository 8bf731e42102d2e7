// Validates one recipe file: read, parse, schema check, then every cross-field rule.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/problem.h"
#include "catalog/catalog_loader.h"
#include "catalog/measurement_dataset.h"
#include "catalog/ranking.h"
#include "catalog/recipe.h"

namespace openrecipes {

/// The outcome for one recipe file.
struct RecipeReport {
  std::string display_path;
  std::optional<Recipe> recipe;  ///< present once the file passed its schema check
  Problems problems;             ///< empty when the recipe is valid
  std::string catalog_path;      ///< relative to the catalog root; empty when outside it
  std::string text;              ///< the file's bytes, once read
  /// clean_recipe_key of the file when it lies in the catalog, was read and was checked with a
  /// set of known clean recipes (validate_recipe_files' `known`), else empty.
  std::string clean_key;
};

/// Recipes known to be valid, so that their checks need not run again: the clean_recipe_key of
/// every recipe file an earlier check_catalog found without a problem. Valid only with the same
/// binary and catalog_context_digest (the caller keys its cache by both): a recipe's problems
/// depend on nothing else (the schema holds its patches under patches/, a context input).
struct CleanRecipes {
  std::unordered_set<std::string> known;  ///< in: recipes checked clean before
  std::vector<std::string> found;         ///< out: every recipe found clean in this check, sorted
};

/// The key of a recipe file in CleanRecipes: SHA-256 (hex) of its path relative to the catalog
/// root, a newline, and its bytes.
std::string clean_recipe_key(std::string_view catalog_path, std::string_view text);

/// Validates recipe `text` as the file `display_path`, whose path relative to the catalog root is
/// `catalog_path` (empty when the file lies outside the catalog). Cross-field rules run only once
/// the schema check passed, so every problem they report is about a well-typed value.
RecipeReport validate_recipe_text(const LoadedCatalog& loaded, const std::string& display_path,
                                  const std::string& catalog_path, std::string_view text);

/// Reads and validates the file at `path` (relative to the working directory or absolute);
/// a missing, unreadable or oversized file is a problem, never an exception.
RecipeReport validate_recipe_file(const LoadedCatalog& loaded, const std::string& path);

/// Validates each of `paths` as validate_recipe_file does, on every core (parallel_for, one
/// thread per 64 files at most), and returns the reports in the order of `paths`. A catalog
/// recipe whose clean_recipe_key is in `known` (optional) is only parsed, for its recipe: its
/// schema and rules passed before. An exception from any file (a bug) is rethrown here once every
/// thread has stopped.
std::vector<RecipeReport> validate_recipe_files(
    const LoadedCatalog& loaded, const std::vector<std::string>& paths,
    const std::unordered_set<std::string>* known = nullptr);

/// A whole catalog, checked: the shared files, then each recipe.
struct CatalogCheck {
  std::optional<LoadedCatalog> loaded;  ///< absent when a shared file is broken
  std::vector<CatalogRecipe> recipes;   ///< the recipes that passed, with their text
  Problems problems;                    ///< every problem of every file
  std::size_t files_checked = 0;        ///< recipe files looked at
  /// The published measurements (data/measurements/), checked with the whole catalog; absent
  /// when the catalog has no data/measurements folder, when only other files were named, or when
  /// the dataset is broken (its problems are in `problems`).
  std::optional<MeasurementDataset> measurements;
};

/// Loads the catalog at `root` and validates `files` (paths as the user gave them; one that names
/// the same file as an earlier one, after `.`, `..` and symbolic links, is left out), or every
/// recipe under `<root>/recipes` when `files` is empty (shown relative to `display_base`); with
/// no files named, also the published-measurement dataset when `<root>/data/measurements` exists
/// (load_measurement_dataset). A named file that is one of the catalog's own data files is checked
/// as what it is, not as a recipe: models.yaml, gpus.yaml, authors.yaml and site.yaml by the
/// catalog's load, a file under data/measurements/ by loading the dataset; neither counts in
/// `files_checked`.
/// With `clean` (optional), the recipes in clean->known skip their checks and clean->found is
/// filled (see CleanRecipes).
CatalogCheck check_catalog(const std::filesystem::path& root, const std::vector<std::string>& files,
                           const std::filesystem::path& display_base,
                           CleanRecipes* clean = nullptr);

}  // namespace openrecipes
