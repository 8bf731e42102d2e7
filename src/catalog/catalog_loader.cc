#include "catalog/catalog_loader.h"

#include <fmt/format.h>

#include <set>

#include "params/model_shape.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::optional<YamlDocument> load_checked_file(const std::string& path,
                                              const std::string& schema_path, Problems& problems) {
  std::optional<SchemaChecker> schema = SchemaChecker::load(schema_path, problems);
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, problems);
  if (!schema || !text) return std::nullopt;
  std::optional<YamlDocument> document = parse_yaml(*text, path, problems);
  if (!document) return std::nullopt;
  Problems found = schema->check(*document);
  if (!found.empty()) {
    problems.insert(problems.end(), found.begin(), found.end());
    return std::nullopt;
  }
  return document;
}

std::optional<YamlDocument> load_checked_catalog_file(const fs::path& root, const std::string& name,
                                                      Problems& problems) {
  std::string schema_name = name.substr(0, name.find('.')) + ".schema.yaml";
  return load_checked_file((root / name).string(), (root / "schema" / schema_name).string(),
                           problems);
}

namespace {

// Reports a repeated value of `field` among the list items at `list`.
template <typename T>
void check_unique(const YamlDocument& document, const std::string& list,
                  const std::vector<T>& items, const std::string& field, std::string T::*member,
                  Problems& problems) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!seen.insert(items[i].*member).second) {
      std::string path = fmt::format("{}[{}].{}", list, i, field);
      problems.push_back({document.file, document.position_of(path), path, "catalog.unique",
                          "appears twice", "a unique value", items[i].*member});
    }
  }
}

}  // namespace

std::optional<LoadedCatalog> load_catalog(const fs::path& root, Problems& problems) {
  std::size_t before = problems.size();
  std::optional<YamlDocument> models = load_checked_catalog_file(root, "models.yaml", problems);
  std::optional<YamlDocument> gpus = load_checked_catalog_file(root, "gpus.yaml", problems);
  std::optional<YamlDocument> authors = load_checked_catalog_file(root, "authors.yaml", problems);
  std::optional<SchemaChecker> recipe_schema =
      SchemaChecker::load((root / "schema" / "recipe.schema.yaml").string(), problems);
  if (!models || !gpus || !authors || !recipe_schema) return std::nullopt;

  Catalog catalog;
  catalog.root = root;
  catalog.models = models_from_yaml(models->root);
  catalog.gpus = gpus_from_yaml(gpus->root);
  catalog.authors = authors_from_yaml(authors->root);
  check_unique(*models, "models", catalog.models, "name", &Model::name, problems);
  check_unique(*models, "models", catalog.models, "slug", &Model::slug, problems);
  check_unique(*gpus, "gpus", catalog.gpus, "type", &Gpu::type, problems);
  check_unique(*gpus, "gpus", catalog.gpus, "slug", &Gpu::slug, problems);
  check_unique(*authors, "authors", catalog.authors, "name", &Author::name, problems);
  for (Model& model : catalog.models) {
    std::optional<ModelShape> shape = model_shape_from_file(
        (root / "models" / model.slug / "config.json").string(), model.name, problems);
    if (shape) {
      model.active_params = shape->active_params;
      model.shape = std::move(*shape);
    }
  }
  if (problems.size() != before) return std::nullopt;
  return LoadedCatalog{std::move(catalog), std::move(*recipe_schema)};
}

}  // namespace openrecipes
