// Which recipe is best: the catalog's one ranking rule, shared by the site and the planner.
#pragma once

#include <string>
#include <vector>

#include "catalog/recipe.h"

namespace openrecipes {

/// A recipe with where it lives and its exact file text.
struct CatalogRecipe {
  std::string catalog_path;  ///< `recipes/<model>/<gpu>/<file>.yaml`
  std::string text;          ///< the file's bytes
  Recipe recipe;

  /// The file name without `.yaml`, e.g. `attune-tp1-pp4-ep8-rc2`.
  std::string stem() const;
};

/// The verified recipes of one (model, GPU type), best first: higher tokens/s per GPU ranks
/// higher (the submission guide: recipes rank within a model and GPU type by tokens/s per GPU, on
/// any number of GPUs); ties go to the earlier measurement, then to the path, so the order is
/// total. Unverified recipes are left out (the submission guide: the catalog lists a recipe once
/// every check passes).
std::vector<const CatalogRecipe*> rank_recipes(const std::vector<CatalogRecipe>& recipes,
                                               const std::string& model,
                                               const std::string& gpu_type);

}  // namespace openrecipes
