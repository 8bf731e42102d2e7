#include "cli/recipe_file.h"

namespace openrecipes::cli {

std::optional<RecipeFile> read_recipe_file(const GlobalOptions& global, const std::string& path,
                                           Problems& problems) {
  std::optional<std::filesystem::path> root = resolve_root(global);
  if (!root) return std::nullopt;
  return openrecipes::read_recipe_file(*root, path, problems);
}

}  // namespace openrecipes::cli
