#include "catalog/recipe_file.h"

#include <utility>

namespace openrecipes {

std::optional<RecipeFile> read_recipe_file(const std::filesystem::path& root,
                                           const std::string& path, Problems& problems) {
  std::optional<LoadedCatalog> catalog = load_catalog(root, problems);
  if (!catalog) return std::nullopt;
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  std::optional<YamlDocument> document = parse_yaml(*text, path, problems);
  if (!document) return std::nullopt;
  Problems schema_problems = catalog->recipe_schema.check(*document);
  if (!schema_problems.empty()) {
    problems.insert(problems.end(), schema_problems.begin(), schema_problems.end());
    return std::nullopt;
  }
  Recipe recipe = recipe_from_yaml(document->root);
  return RecipeFile{std::move(*document), std::move(recipe), std::move(*catalog)};
}

}  // namespace openrecipes
