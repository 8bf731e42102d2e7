// What `plan`, `recommend` and `export --layout` share: the checked catalog with its verified
// recipes, the argument rules, the speed model calibrated on the recipes, and how a --model and a
// --gpu given on the command line are resolved.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "cli/cli_options.h"
#include "params/model_shape.h"
#include "plan/catalog_measurements.h"
#include "layout/layout_rules.h"
#include "plan/speed_calibration.h"
#include "runs/argument_rules.h"
#include "validate/recipe_validator.h"

namespace openrecipes::cli {

/// The loaded catalog and what is derived from it.
struct PlannerContext {
  CatalogCheck checked;                 ///< shared files and the recipes that passed validation
  std::vector<MeasuredLayout> measured;  ///< the verified recipes as measured layouts
  SpeedCalibration calibration;         ///< the speed model fitted on `measured`
  std::optional<ArgumentRules> rules;   ///< rules/arguments.yaml
  const Catalog& catalog() const { return checked.loaded->catalog; }
};

/// Loads the catalog at --root (or found upward), validates its recipes and calibrates the speed
/// model. Recipes that fail validation are left out of the calibration and reported as warnings
/// on stderr. Returns nullopt after printing why (no root, broken shared files).
std::optional<PlannerContext> load_planner_context(const GlobalOptions& global, const std::string& command);

/// A model named on the command line: a catalog model's name or slug (case-insensitive), or a
/// path to a Hugging Face config.json (or a folder holding one).
struct ModelChoice {
  std::string name;
  std::string family;  ///< models.yaml's family; empty for a config
  ModelShape shape;
  bool in_catalog = false;
};

/// Resolves `text` as above. Returns nullopt after printing a clear error: an unknown name lists
/// the catalog's models; a bad config prints its problems (file:line: field).
std::optional<ModelChoice> resolve_model(const Catalog& catalog, const std::string& text, const std::string& command);

/// Resolves a GPU type (gpus.yaml `type` or `slug`, case-insensitive). Returns nullptr after
/// printing the known types.
const Gpu* resolve_gpu(const Catalog& catalog, const std::string& text, const std::string& command);

/// Parses --precision: "bf16" or "fp8". Prints an error and returns nullopt otherwise.
std::optional<Precision> resolve_precision(const std::string& text, const std::string& command);

/// A layout as given on the command line (`plan --layout`, `export --layout`).
struct LayoutArguments {
  std::string layout;  ///< "TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1"
  std::string recompute = "none";
  std::string layer_split;  ///< "FIRST,LAST" or empty
  std::string dispatcher;   ///< empty: alltoall for a MoE model
};

/// Parses the arguments into a layout for `model` (the dispatcher is cleared for a dense model).
/// Prints the error and returns nullopt for text that is not a layout. A DP given in --layout must
/// equal the implied W / (TP x PP x CP).
std::optional<Layout> parse_layout_arguments(const LayoutArguments& arguments, const ModelShape& model,
                                             const ClusterShape& cluster, std::int64_t row_tokens,
                                             const std::string& command);

/// Prints every rule `layout` breaks (rule id, field, message, expected, found) to stderr; true
/// when it breaks none.
bool report_layout_violations(const ModelShape& model, const ClusterShape& cluster, const PlanWorkload& workload,
                              const Layout& layout, const std::string& command);

}  // namespace openrecipes::cli
