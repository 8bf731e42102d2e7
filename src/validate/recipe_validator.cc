#include "validate/recipe_validator.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "base/parallel_for.h"
#include "text/sha256.h"
#include "validate/recipe_rules.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// The path of `path` relative to the catalog root when it lies under `<root>/recipes`, else "".
std::string catalog_relative(const fs::path& root, const std::string& path) {
  std::error_code ec;
  // Lexically first, so that a link inside recipes/ is judged by its own name; then through
  // symlinks, for a catalog reached by another path.
  fs::path relative = fs::absolute(path, ec).lexically_normal().lexically_relative(
      fs::absolute(root, ec).lexically_normal());
  if (relative.generic_string().rfind("recipes/", 0) != 0) {
    relative = fs::weakly_canonical(fs::absolute(path, ec), ec)
                   .lexically_relative(fs::weakly_canonical(root, ec));
  }
  std::string text = relative.generic_string();
  if (ec || text.rfind("recipes/", 0) != 0) return "";
  return text;
}

// What a named file is when it is one of the catalog's own data files rather than a recipe:
// "shared" for models.yaml, gpus.yaml, authors.yaml and site.yaml at the root (load_catalog
// checks them), "measurements" for a file under data/measurements/, "" for anything else.
std::string catalog_data_kind(const fs::path& root, const std::string& path) {
  std::error_code ec;
  fs::path file = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path base = fs::weakly_canonical(root, ec);
  if (ec) return "";
  for (const char* shared : {"models.yaml", "gpus.yaml", "authors.yaml", "site.yaml"}) {
    if (file == base / shared) return "shared";
  }
  std::string relative = file.lexically_relative(base).generic_string();
  return relative.rfind("data/measurements/", 0) == 0 ? "measurements" : "";
}

}  // namespace

RecipeReport validate_recipe_text(const LoadedCatalog& loaded, const std::string& display_path,
                                  const std::string& catalog_path, std::string_view text) {
  RecipeReport report{display_path, std::nullopt, {}, catalog_path, std::string(text), ""};
  std::optional<YamlDocument> document = parse_yaml(text, display_path, report.problems);
  if (!document) return report;
  report.problems = loaded.recipe_schema.check(*document);
  if (!report.problems.empty()) return report;
  CheckedRecipeFile file{display_path, catalog_path, std::move(*document), {}};
  file.recipe = recipe_from_yaml(file.document.root);
  RuleContext context(loaded.catalog, file, report.problems);
  check_recipe_rules(context);
  report.recipe = file.recipe;
  return report;
}

std::string clean_recipe_key(std::string_view catalog_path, std::string_view text) {
  Sha256Stream digest;
  digest.update(catalog_path.data(), catalog_path.size());
  digest.update("\n", 1);
  digest.update(text.data(), text.size());
  return digest.hex_digest();
}

namespace {

// Reads the file at `path` and validates it, or only parses it when it lies in the catalog and
// its clean_recipe_key is in `known` (optional): checked clean before with the same bytes, path,
// context and binary.
RecipeReport check_recipe_file(const LoadedCatalog& loaded, const std::string& path,
                               const std::unordered_set<std::string>* known) {
  RecipeReport report{path, std::nullopt, {}, "", "", ""};
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, report.problems);
  if (!text) return report;
  std::string catalog_path = catalog_relative(loaded.catalog.root, path);
  // Hashed only for a caller that remembers clean recipes: 70 MB in a 10,000-recipe catalog.
  std::string key = !known || catalog_path.empty() ? "" : clean_recipe_key(catalog_path, *text);
  if (!key.empty() && known->count(key)) {
    report.catalog_path = std::move(catalog_path);
    report.text = std::move(*text);
    if (std::optional<YamlDocument> document =
            parse_yaml(report.text, report.display_path, report.problems)) {
      report.recipe = recipe_from_yaml(document->root);
    }
  } else {
    report = validate_recipe_text(loaded, path, catalog_path, *text);
  }
  report.clean_key = std::move(key);
  return report;
}

}  // namespace

RecipeReport validate_recipe_file(const LoadedCatalog& loaded, const std::string& path) {
  return check_recipe_file(loaded, path, nullptr);
}

std::vector<RecipeReport> validate_recipe_files(const LoadedCatalog& loaded,
                                                const std::vector<std::string>& paths,
                                                const std::unordered_set<std::string>* known) {
  std::vector<RecipeReport> reports(paths.size());
  // Recipes are independent and the loaded catalog is only read; a report lands at its file's
  // index, so the order is the input's.
  parallel_for(
      paths.size(), [&](std::size_t i) { reports[i] = check_recipe_file(loaded, paths[i], known); },
      64);
  return reports;
}

CatalogCheck check_catalog(const fs::path& root, const std::vector<std::string>& files,
                           const fs::path& display_base, CleanRecipes* clean) {
  CatalogCheck check;
  // The catalog's own files (models.yaml, a config.json, the dataset) are named by their full
  // path when loaded; they are shown as the recipes are, relative to `display_base`.
  auto show_relative = [&](std::size_t from) {
    for (std::size_t i = from; i < check.problems.size(); ++i) {
      fs::path file(check.problems[i].file);
      if (!file.is_absolute()) continue;
      fs::path relative = file.lexically_relative(display_base);
      if (!relative.empty()) check.problems[i].file = relative.generic_string();
    }
  };
  check.loaded = load_catalog(root, check.problems);
  show_relative(0);
  if (!check.loaded) return check;
  // A file named twice (`validate a.yaml ./a.yaml`) is checked and counted once, as first named.
  std::vector<std::string> paths;
  std::set<fs::path> seen;
  // The catalog's own data files are checked as what they are, not as recipes: load_catalog has
  // checked the shared ones above, and a file of data/measurements/ loads the whole dataset.
  bool measurements_named = false;
  for (const std::string& file : files) {
    const std::string kind = catalog_data_kind(root, file);
    if (!kind.empty()) {
      measurements_named = measurements_named || kind == "measurements";
      continue;
    }
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(file, ec);
    if (seen.insert(ec ? fs::path(file) : canonical).second) paths.push_back(file);
  }
  if ((files.empty() || measurements_named) && fs::is_directory(root / "data" / "measurements")) {
    std::size_t before = check.problems.size();
    check.measurements = load_measurement_dataset(root, check.loaded->catalog.gpus, check.problems,
                                                  &check.loaded->catalog.models);
    show_relative(before);
  }
  if (files.empty()) {
    // Recipes, and the problems of what is not one (a link leading nowhere, a FIFO), are shown
    // as every problem is: relative to `display_base`, not to the root.
    Problems listing;
    for (const std::string& relative : list_recipe_files(root, listing)) {
      paths.push_back((root / relative).lexically_relative(display_base).generic_string());
    }
    for (Problem& problem : listing) {
      problem.file = (root / problem.file).lexically_relative(display_base).generic_string();
      check.problems.push_back(std::move(problem));
    }
  }
  std::vector<RecipeReport> reports =
      validate_recipe_files(*check.loaded, paths, clean ? &clean->known : nullptr);
  // Reserved: a recipe is large, and growing the vector would move every one already in it.
  check.recipes.reserve(check.recipes.size() + reports.size());
  for (RecipeReport& report : reports) {
    ++check.files_checked;
    if (report.problems.empty() && report.recipe) {
      if (clean && !report.clean_key.empty()) clean->found.push_back(std::move(report.clean_key));
      check.recipes.push_back(
          {report.catalog_path, std::move(report.text), std::move(*report.recipe)});
    }
    check.problems.insert(check.problems.end(), report.problems.begin(), report.problems.end());
  }
  if (clean) {
    std::sort(clean->found.begin(), clean->found.end());
    clean->found.erase(std::unique(clean->found.begin(), clean->found.end()), clean->found.end());
  }
  return check;
}

}  // namespace openrecipes
