#include "cli/planner_context.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/catalog_cache.h"
#include "plan/layout_request.h"

namespace openrecipes::cli {

std::optional<PlannerContext> load_planner_context(const GlobalOptions& global,
                                                   const std::string& command, Problems& problems,
                                                   bool leave_one_model_out,
                                                   const std::string& planned_model) {
  std::optional<std::filesystem::path> root = resolve_root(global);
  if (!root) return std::nullopt;
  // Opened before the catalog is read (catalog_cache.h).
  std::optional<CatalogCache> cache = catalog_cache(*root);
  PlannerContext context;
  // Recipes are opened by their path relative to the working directory, which is also how they
  // are shown; the root is absolute (resolve_root).
  context.checked = check_catalog_remembering_clean(*root, {}, std::filesystem::current_path());
  if (!context.checked.loaded) {
    problems.insert(problems.end(), context.checked.problems.begin(),
                    context.checked.problems.end());
    return std::nullopt;
  }
  // The published measurements were checked with the catalog: a broken dataset is an error (its
  // problems, read again, are the command's), not recipes left out of the calibration.
  const bool has_dataset = std::filesystem::exists(*root / "data" / "measurements");
  if (has_dataset && !context.checked.measurements) {
    published_measurements(*root, context.catalog().gpus, problems, &context.catalog().models);
    if (!problems.empty()) return std::nullopt;
  }
  for (const Problem& problem : context.checked.problems) {
    fmt::print(stderr, "openrecipes {}: warning: left out of the calibration: {}\n", command,
               format_problem_line(problem));
  }
  context.rules = load_argument_rules(*root, problems);
  if (!context.rules) return std::nullopt;
  const Model* planned = find_catalog_model(context.catalog(), planned_model);
  const std::string keep_model = planned ? planned->name : "";
  context.measured =
      distinct_measured_layouts(context.catalog(), context.checked.recipes, keep_model);
  if (context.measured.empty()) {
    problems.push_back(
        {(*root / "recipes").string(),
         {},
         "",
         "plan.no_recipes",
         "no verified recipe of the catalog could be read; the speed model is calibrated on them",
         "at least one verified recipe",
         fmt::format("{} recipe files, none verified and valid", context.checked.files_checked)});
    return std::nullopt;
  }
  if (context.checked.measurements) {
    PublishedLayouts published = published_layouts(
        *root, *context.checked.measurements, context.catalog().gpus, &context.catalog().models);
    context.measured.insert(context.measured.end(), published.layouts.begin(),
                            published.layouts.end());
    context.excluded = std::move(published.excluded);
  }
  // The fits depend on the recipes only through what they measured, and on which copy was kept.
  std::string key =
      cache ? cache->key(fmt::format("speed fits{} keeping {}",
                                     leave_one_model_out ? " with leave-one-model-out refits" : "",
                                     keep_model),
                         measurement_evidence(context.checked.recipes))
            : "";
  context.calibration = calibrate_speed_model_cached(context.measured, leave_one_model_out,
                                                     cache ? &cache->cache : nullptr, key);
  return context;
}

std::optional<PublishedLayouts> published_measurements(const std::filesystem::path& root,
                                                       const std::vector<Gpu>& gpus,
                                                       Problems& problems,
                                                       const std::vector<Model>* catalog_models) {
  std::optional<MeasurementDataset> dataset = load_measurement_dataset(root, gpus, problems);
  if (!dataset) return std::nullopt;
  return published_layouts(root, *dataset, gpus, catalog_models);
}

}  // namespace openrecipes::cli
