// Fits the speed model's free parameters to measured layouts (the catalog's recipes and the
// published measurements of data/measurements/) and reports how well the model predicts what it
// was not fitted on: the leave-one-model-out error of every row, by group, and the rank order
// within each (model, GPU type, GPU count).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result_cache.h"
#include "catalog/recipe.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"
#include "plan/speed_model.h"

namespace openrecipes {

/// One measured layout as the calibration sees it.
struct MeasuredLayout {
  std::string name;  ///< the recipe's path, or a published row's label, for output
  ModelShape model;
  ClusterShape cluster;
  PlanWorkload workload;
  Layout layout;
  double tokens_per_s_per_gpu = 0;  ///< measured score
  /// Where the measurement comes from: a catalog recipe's path, or the published table's file,
  /// commit, release and row (data/measurements/).
  std::string source;
  bool published = false;  ///< from data/measurements/ rather than the catalog's recipes
  /// The published run's recompute is stated (models.yaml's run_settings recompute_modules), not
  /// chosen by the planner
  bool recompute_stated = false;
};

/// One measured layout's row of the calibration report.
struct CalibrationRow {
  std::string name;
  std::string model;      ///< the model's name (the unit left out)
  std::string group_key;  ///< "model / GPU type / GPUs", for rank correlation
  bool moe = false;
  std::string gpu_type;
  std::string precision;
  bool published = false;
  double measured_tokens_per_s_per_gpu = 0;
  double fitted_tokens_per_s_per_gpu = 0;  ///< predicted with parameters fitted on every row
  /// predicted with parameters fitted on the rows of every other model
  double leave_one_out_tokens_per_s_per_gpu = 0;
  double leave_one_out_error = 0;  ///< (leave-one-out - measured) / measured
};

/// One fitted parameter: its value, bounds and prior.
struct FittedParameter {
  std::string name;
  double value = 0, prior = 0, low = 0, high = 0;
  bool at_bound = false;  ///< within 0.1% (log) of a bound
};

/// Mean absolute leave-one-out error of a group of rows.
struct GroupError {
  std::string group;  ///< e.g. "dense", "MoE", "GPU H100", "precision fp8"
  int rows = 0;
  double mape = 0;  ///< fraction
};

/// Spearman's rank correlation of leave-one-out predictions against measurements within a group.
struct RankAgreement {
  std::string group;  ///< "model / GPU type / GPUs"
  int rows = 0;
  /// in [-1, 1]; NaN when undefined (every prediction, or every measurement, of the group equal)
  double spearman = 0;
};

/// The fit and its report.
/// How well the error bands (prediction_band.h) hold on the calibration's own rows: each row's
/// band taken from the rows of the other models only, as a model new to the calibration gets it,
/// against the row's leave-one-model-out error.
struct BandCoverage {
  int rows = 0;            ///< rows checked
  int within = 0;          ///< rows whose |leave-one-model-out error| is at most their band
  double median_band = 0;  ///< median band over the rows, fraction
};

struct SpeedCalibration {
  SpeedParameters parameters;  ///< fitted on every row
  std::vector<FittedParameter> fitted;
  std::vector<CalibrationRow> rows;
  double mape = 0;  ///< mean |leave-one-out error| over every row, fraction
  std::vector<GroupError> groups;
  std::vector<RankAgreement> ranks;
  int models = 0;              ///< distinct models (fits run: one per model plus the full fit)
  BandCoverage band_coverage;  ///< empty without the leave-one-model-out refits
};

/// Fits the parameters of speed_parameter_bounds() within their bounds, starting from `prior`:
/// Ceres Solver's bounded trust-region least squares on the log error of predicted against
/// measured tokens/s per GPU, a Huber loss of scale 0.5 on each row's log error (so a row off by
/// far more than 50% pulls linearly, not quadratically), scaled by 1 / its model's rows so no model
/// dominates, and a weak pull (weight 0.1 per unit of log) of each parameter towards its prior so
/// a parameter the rows do not identify stays there (docs/planner.md). Then refits once per model
/// without that model's rows, for the leave-one-model-out error of each, and the error bands'
/// coverage. Deterministic (each fit on one thread in a fixed order, whatever the thread count).
/// An empty `measured` gives the prior and no rows. `leave_one_model_out` false skips the refits
/// (rows then carry the fitted prediction as their leave-one-out one).
SpeedCalibration calibrate_speed_model(const std::vector<MeasuredLayout>& measured,
                                       const SpeedParameters& prior = {},
                                       bool leave_one_model_out = true);

/// What calibrate_speed_model fits, the costly part (seconds): the parameters fitted on every row,
/// and for each model of `measured` (in the order its rows first appear) those fitted without its
/// rows; `held_out` is empty when the refits were skipped.
struct SpeedFits {
  SpeedParameters all;
  std::vector<std::pair<std::string, SpeedParameters>> held_out;
};

/// The fits of calibrate_speed_model(measured, prior, leave_one_model_out).
SpeedFits fit_speed_parameters(const std::vector<MeasuredLayout>& measured,
                               const SpeedParameters& prior = {}, bool leave_one_model_out = true);

/// The calibration and its report from `fits` of `measured` (fit_speed_parameters, or
/// speed_fits_from_json of what it gave): equal, to the bit, to calibrate_speed_model's. Cheap:
/// two predictions per row.
SpeedCalibration calibration_from_fits(const std::vector<MeasuredLayout>& measured,
                                       const SpeedParameters& prior, const SpeedFits& fits);

/// `fits` as JSON: {"all": {parameter: value}, "held_out": [{"model", "parameters"}]}, the values
/// as exact doubles.
nlohmann::json speed_fits_to_json(const SpeedFits& fits);

/// The fits speed_fits_to_json wrote for `measured`, or nullopt when `json` is not that: another
/// parameter set, a value outside its bounds or not finite, or held-out fits for other models than
/// those of `measured` (none when `leave_one_model_out` is false).
std::optional<SpeedFits> speed_fits_from_json(const nlohmann::json& json,
                                              const std::vector<MeasuredLayout>& measured,
                                              const SpeedParameters& prior,
                                              bool leave_one_model_out);

/// calibrate_speed_model(measured, {}, leave_one_model_out), with its fits read from `cache` under
/// `key` when stored there (and valid for `measured`), else fitted and stored. `key` must identify
/// `measured`, the refit flag and the code: the CLI's digest of the catalog's inputs but recipes/,
/// the recipes' measurement_evidence, executable_build_id() and the purpose
/// (cli/catalog_cache.h). A null `cache`: no cache.
SpeedCalibration calibrate_speed_model_cached(const std::vector<MeasuredLayout>& measured,
                                              bool leave_one_model_out, const ResultCache* cache,
                                              const std::string& key);

}  // namespace openrecipes
