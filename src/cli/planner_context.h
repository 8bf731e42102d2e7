// What `plan`, `recommend` and `export --layout` share: the checked catalog with its verified
// recipes, the argument rules, and the speed model calibrated on the recipes. The flags are
// resolved and checked by plan/layout_request.h.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "cli/cli_options.h"
#include "plan/catalog_measurements.h"
#include "plan/published_measurements.h"
#include "plan/speed_calibration.h"
#include "runs/argument_rules.h"
#include "validate/recipe_validator.h"

namespace openrecipes::cli {

/// The loaded catalog and what is derived from it.
struct PlannerContext {
  CatalogCheck checked;  ///< shared files and the recipes that passed validation
  /// the verified recipes (renamed copies once: distinct_measured_layouts), then the usable
  /// published measurements, as measured layouts
  std::vector<MeasuredLayout> measured;
  std::vector<PublishedExclusion> excluded;  ///< published rows the planner cannot use, and why
  SpeedCalibration calibration;              ///< the speed model fitted on `measured`
  std::optional<ArgumentRules> rules;        ///< rules/arguments.yaml
  const Catalog& catalog() const { return checked.loaded->catalog; }
};

/// Loads the catalog at --root (or found upward), validates its recipes (opened by their real
/// paths; shown relative to the working directory, as validate shows them), reads the published
/// measurements of data/measurements/ when the catalog has them, and calibrates the speed model
/// on both. A broken dataset is an error (its problems are returned, and no recipe warning is
/// printed). Recipes that fail validation are left out of the calibration and reported as
/// warnings on stderr. Returns nullopt with the
/// problems when the shared files or rules/arguments.yaml are broken, or when no verified recipe
/// could be read (the planner is calibrated on them; rule `plan.no_recipes`). Prints nothing else;
/// a missing root is printed by resolve_root and returns nullopt with no problem.
/// `leave_one_model_out` false skips the calibration's refits (no error bands: `export` needs only
/// the fitted parameters). `planned_model` (the --model given: a catalog name or slug, or empty)
/// names the model whose recipes are kept when renamed copies of a recipe count once
/// (distinct_measured_layouts), so the command still shows that model's own measurements.
std::optional<PlannerContext> load_planner_context(const GlobalOptions& global,
                                                   const std::string& command, Problems& problems,
                                                   bool leave_one_model_out = true,
                                                   const std::string& planned_model = "");

/// The published measurements of the catalog at `root` (data/measurements/, checked against
/// `gpus`) as the planner can use them: the usable rows as MeasuredLayouts and every other row
/// with its reason (published_layouts). Returns nullopt, adding the dataset's problems, when it
/// is missing or breaks a rule (catalog/measurement_dataset.h). With `catalog_models`, each row's
/// model carries the catalog's name for its slug.
std::optional<PublishedLayouts> published_measurements(
    const std::filesystem::path& root, const std::vector<Gpu>& gpus, Problems& problems,
    const std::vector<Model>* catalog_models = nullptr);

}  // namespace openrecipes::cli
