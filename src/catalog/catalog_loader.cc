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

// A model's slug names its folder at the top of the site, beside the site's own files: it may
// not be one of them (index.html, style.css, ...) or a file name, nor `recipes`, the folder of
// the recipe files the site copies.
void check_site_slugs(const YamlDocument& document, const std::vector<Model>& models,
                      Problems& problems) {
  for (std::size_t i = 0; i < models.size(); ++i) {
    const std::string& slug = models[i].slug;
    bool file_like = false;
    for (const char* ext : {".html", ".css", ".js", ".json", ".yaml", ".xml", ".txt"}) {
      std::string e = ext;
      if (slug.size() >= e.size() && slug.compare(slug.size() - e.size(), e.size(), e) == 0)
        file_like = true;
    }
    if (file_like || slug == "recipes") {
      std::string path = fmt::format("models[{}].slug", i);
      problems.push_back({document.file, document.position_of(path), path, "catalog.slug",
                          "the slug names the model's folder of the site, beside its index.html, "
                          "style.css and recipes/: it must not look like a file or be recipes",
                          "a folder name such as llama3-8b", slug});
    }
  }
}

// A config copied from another public repository (no Hugging Face revision) says where from.
void check_config_sources(const fs::path& root, const YamlDocument& document,
                          const std::vector<Model>& models, Problems& problems) {
  for (std::size_t i = 0; i < models.size(); ++i) {
    if (!models[i].revision.empty()) continue;
    fs::path source = root / "models" / models[i].slug / "source.yaml";
    std::error_code ec;
    if (fs::is_regular_file(source, ec) && fs::file_size(source, ec) > 0) continue;
    std::string path = fmt::format("models[{}]", i);
    problems.push_back(
        {document.file, document.position_of(path + ".slug"), path + ".revision",
         "catalog.config_source",
         "a model without a Hugging Face revision has its config's source in source.yaml "
         "beside it (repository, path, commit)",
         "a revision, or models/" + models[i].slug + "/source.yaml", "neither"});
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
  check_site_slugs(*models, catalog.models, problems);
  check_config_sources(root, *models, catalog.models, problems);
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
