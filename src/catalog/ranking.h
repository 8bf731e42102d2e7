// Which recipe is best: the catalog's one ranking rule, shared by the site and the planner.
#pragma once

#include <map>
#include <string>
#include <utility>
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

/// Every (model, GPU type)'s ranked recipes, ranked once: a build of thousands of pages asks for
/// each pair's ranking several times (index cell, pair page, other GPUs' tiles, search index), and
/// rank_recipes scans the whole catalog for each ask.
class RecipeRanks {
 public:
  /// Ranks `recipes` by pair; the pointers it hands out point into `recipes`, which must outlive
  /// it.
  explicit RecipeRanks(const std::vector<CatalogRecipe>& recipes);

  /// rank_recipes(recipes, model, gpu_type), looked up: empty when the pair has no verified recipe.
  const std::vector<const CatalogRecipe*>& of(const std::string& model,
                                              const std::string& gpu_type) const;

 private:
  std::map<std::pair<std::string, std::string>, std::vector<const CatalogRecipe*>> ranked_;
};

}  // namespace openrecipes
