#include "validate/recipe_validator.h"

#include <filesystem>

#include "validate/recipe_rules.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// The path of `path` relative to the catalog root when it lies under `<root>/recipes`, else "".
std::string catalog_relative(const fs::path& root, const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path canonical_root = fs::weakly_canonical(root, ec);
  fs::path relative = absolute.lexically_relative(canonical_root);
  std::string text = relative.generic_string();
  if (ec || text.empty() || text.rfind("recipes/", 0) != 0) return "";
  return text;
}

}  // namespace

RecipeReport validate_recipe_text(const LoadedCatalog& loaded, const std::string& display_path,
                                  const std::string& catalog_path, std::string_view text) {
  RecipeReport report{display_path, std::nullopt, {}};
  std::optional<YamlDocument> document = parse_yaml(text, display_path, report.problems);
  if (!document) return report;
  report.problems = loaded.recipe_schema.check(*document);
  if (!report.problems.empty()) return report;
  RecipeFile file{display_path, catalog_path, std::move(*document), {}};
  file.recipe = recipe_from_yaml(file.document.root);
  RuleContext context(loaded.catalog, file, report.problems);
  check_recipe_rules(context);
  report.recipe = file.recipe;
  return report;
}

RecipeReport validate_recipe_file(const LoadedCatalog& loaded, const std::string& path) {
  RecipeReport report{path, std::nullopt, {}};
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, report.problems);
  if (!text) return report;
  return validate_recipe_text(loaded, path, catalog_relative(loaded.catalog.root, path), *text);
}

}  // namespace openrecipes
