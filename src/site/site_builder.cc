#include "site/site_builder.h"

#include <fstream>
#include <functional>
#include <sstream>

#include "base/parallel_for.h"
#include "base/yaml_fields.h"
#include "catalog/catalog_loader.h"
#include "site/page_model.h"
#include "site/published_context.h"
#include "site/template_renderer.h"
#include "site/unmeasured_page.h"

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

// One page to render: where it goes, its template, and its page model (built when rendered).
struct PageJob {
  std::string path;
  const char* template_name;
  std::function<nlohmann::json()> model;
};

// Renders every job on as many threads as the machine has cores (at most 16): the pages in job
// order, and the problems of each job in job order, as one thread would give them.
std::vector<std::pair<std::string, std::string>> render_pages(const TemplateRenderer& renderer,
                                                              const std::vector<PageJob>& jobs,
                                                              Problems& problems) {
  std::vector<std::pair<std::string, std::string>> pages(jobs.size());
  std::vector<Problems> job_problems(jobs.size());
  parallel_for(jobs.size(), [&](std::size_t i) {
    std::optional<std::string> text =
        renderer.render(jobs[i].template_name, jobs[i].model(), job_problems[i]);
    pages[i] = {jobs[i].path, text.value_or("")};
  });
  for (Problems& each : job_problems) problems.insert(problems.end(), each.begin(), each.end());
  return pages;
}

}  // namespace

std::optional<SiteFiles> build_site(CatalogCheck check, const SitePredictions& predictions,
                                    Problems& problems) {
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
  const RecipeRanks ranks(check.recipes);
  files["index.html"] = page("index", index_page(catalog, ranks));
  files["search.json"] = search_index(catalog, ranks).dump(1) + "\n";
  // The pair and recipe pages, thousands in a large catalog, are rendered on every core: each
  // job builds its page model and renders it, alone.
  const MeasurementDataset* measurements = check.measurements ? &*check.measurements : nullptr;
  std::vector<PageJob> jobs;
  for (const Model& model : catalog.models) {
    for (const Gpu& gpu : catalog.gpus) {
      const std::vector<const CatalogRecipe*>& ranked = ranks.of(model.name, gpu.type);
      if (ranked.empty()) {
        jobs.push_back({pair_page_path(model, gpu), "unmeasured", [&, m = &model, g = &gpu] {
                          return unmeasured_page(*m, *g, predictions.find(m->name, g->type),
                                                 predictions, measurements);
                        }});
        continue;
      }
      for (std::size_t n = 1; n <= pair_page_count(ranked.size()); ++n) {
        jobs.push_back({pair_page_path(model, gpu, n), "pair", [&, n, m = &model, g = &gpu] {
                          nlohmann::json model_json =
                              pair_page(catalog, ranks, *m, *g, *settings, n);
                          // Published runs are context for the pair, shown once, on its first page.
                          if (n == 1) model_json.update(published_context(measurements, *m, *g));
                          return model_json;
                        }});
      }
      for (std::size_t i = 0; i < ranked.size(); ++i) {
        jobs.push_back({recipe_page_path(*ranked[i]), "recipe",
                        [&, i, count = ranked.size(), entry = ranked[i], m = &model, g = &gpu] {
                          return recipe_page(catalog, *entry, static_cast<int>(i + 1), count, *m,
                                             *g, *settings);
                        }});
      }
    }
  }
  for (auto& [path, text] : render_pages(*renderer, jobs, problems)) files[path] = std::move(text);
  // Every page is rendered: the texts are not read again (`ranks` points into check.recipes).
  for (CatalogRecipe& entry : check.recipes) {
    if (entry.recipe.status == "verified") files[entry.catalog_path] = std::move(entry.text);
  }
  nlohmann::json plain = {{"root", ""}};
  files["running.html"] = page("running", plain);
  files["submit.html"] = page("submit", plain);
  files["fields.html"] = page("fields", fields_page(check.loaded->recipe_schema.ordered_json()));
  if (problems.size() != before) return std::nullopt;
  return files;
}

}  // namespace openrecipes
