#include "catalog/ranking.h"

#include <algorithm>
#include <tuple>

namespace openrecipes {

std::string CatalogRecipe::stem() const {
  std::string name = catalog_path.substr(catalog_path.find_last_of('/') + 1);
  return name.size() > 5 && name.ends_with(".yaml") ? name.substr(0, name.size() - 5) : name;
}

namespace {

// The ranking rule (rank_recipes): higher tokens/s per GPU, then the earlier measurement, then
// the path.
bool ranks_before(const CatalogRecipe* a, const CatalogRecipe* b) {
  return std::make_tuple(-a->recipe.result.tokens_per_s_per_gpu, a->recipe.result.measured,
                         a->catalog_path) < std::make_tuple(-b->recipe.result.tokens_per_s_per_gpu,
                                                            b->recipe.result.measured,
                                                            b->catalog_path);
}

}  // namespace

std::vector<const CatalogRecipe*> rank_recipes(const std::vector<CatalogRecipe>& recipes,
                                               const std::string& model,
                                               const std::string& gpu_type) {
  std::vector<const CatalogRecipe*> ranked;
  for (const CatalogRecipe& entry : recipes) {
    if (entry.recipe.model == model && entry.recipe.gpu.type == gpu_type &&
        entry.recipe.status == "verified") {
      ranked.push_back(&entry);
    }
  }
  std::sort(ranked.begin(), ranked.end(), ranks_before);
  return ranked;
}

RecipeRanks::RecipeRanks(const std::vector<CatalogRecipe>& recipes) {
  for (const CatalogRecipe& entry : recipes) {
    if (entry.recipe.status == "verified")
      ranked_[{entry.recipe.model, entry.recipe.gpu.type}].push_back(&entry);
  }
  for (auto& [pair, ranked] : ranked_) std::sort(ranked.begin(), ranked.end(), ranks_before);
}

const std::vector<const CatalogRecipe*>& RecipeRanks::of(const std::string& model,
                                                         const std::string& gpu_type) const {
  static const std::vector<const CatalogRecipe*> none;
  auto it = ranked_.find({model, gpu_type});
  return it == ranked_.end() ? none : it->second;
}

}  // namespace openrecipes
