#include "site/site_builder.h"

#include <fstream>
#include <sstream>

#include "base/yaml_fields.h"
#include "catalog/catalog_loader.h"
#include "site/page_model.h"
#include "site/template_renderer.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

std::optional<SiteSettings> load_settings(const fs::path& root, Problems& problems) {
  std::optional<YamlDocument> document = load_checked_catalog_file(root, "site.yaml", problems);
  if (!document) return std::nullopt;
  return SiteSettings{field_string(document->root, "repository_url"),
                      field_string(document->root, "branch")};
}

std::optional<std::string> read_asset(const fs::path& path, Problems& problems) {
  return read_text_file(path.string(), kMaxCatalogFileBytes, problems);
}

}  // namespace

std::optional<SiteFiles> build_site(const CatalogCheck& check, Problems& problems) {
  const Catalog& catalog = check.loaded->catalog;
  std::optional<SiteSettings> settings = load_settings(catalog.root, problems);
  std::optional<TemplateRenderer> renderer =
      TemplateRenderer::load(catalog.root / "templates", problems);
  std::optional<std::string> css = read_asset(catalog.root / "templates" / "style.css", problems);
  std::optional<std::string> js = read_asset(catalog.root / "templates" / "site.js", problems);
  if (!settings || !renderer || !css || !js) return std::nullopt;

  SiteFiles files;
  std::size_t before = problems.size();
  auto page = [&](const char* name, const nlohmann::json& context) {
    return renderer->render(name, context, problems).value_or("");
  };
  files["style.css"] = *css;
  files["site.js"] = *js;
  files["index.html"] = page("index", index_page(catalog, check.recipes));
  for (const Model& model : catalog.models) {
    for (const Gpu& gpu : catalog.gpus) {
      std::vector<const CatalogRecipe*> ranked = rank_recipes(check.recipes, model.name, gpu.type);
      if (ranked.empty()) continue;
      for (std::size_t n = 1; n <= pair_page_count(ranked.size()); ++n) {
        files[pair_page_path(model, gpu, n)] =
            page("pair", pair_page(catalog, check.recipes, model, gpu, *settings, n));
      }
      for (std::size_t i = 0; i < ranked.size(); ++i) {
        files[recipe_page_path(*ranked[i])] =
            page("recipe", recipe_page(catalog, *ranked[i], static_cast<int>(i + 1), ranked.size(),
                                       model, gpu, *settings));
      }
    }
  }
  for (const CatalogRecipe& entry : check.recipes) {
    if (entry.recipe.status == "verified") files[entry.catalog_path] = entry.text;
  }
  nlohmann::json plain = {{"root", ""}};
  files["running.html"] = page("running", plain);
  files["submit.html"] = page("submit", plain);
  files["fields.html"] = page("fields", fields_page(check.loaded->recipe_schema.ordered_json()));
  if (problems.size() != before) return std::nullopt;
  return files;
}

}  // namespace openrecipes
