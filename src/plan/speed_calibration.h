// Fits the speed model's free parameters to the catalog's measured recipes and reports the
// leave-one-out error of each: how well the model predicts a recipe it was not fitted on.
#pragma once

#include <string>
#include <vector>

#include "catalog/recipe.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"
#include "plan/speed_model.h"

namespace openrecipes {

/// One measured recipe as the calibration sees it.
struct MeasuredLayout {
  std::string name;  ///< the recipe's path, for output
  ModelShape model;
  ClusterShape cluster;
  PlanWorkload workload;
  Layout layout;
  double tokens_per_s_per_gpu = 0;  ///< measured score
  /// Where the measurement comes from: a catalog recipe's path, or the published table's file,
  /// commit, release and row (data/measurements/).
  std::string source;
  bool published = false;  ///< from data/measurements/ rather than the catalog's recipes
};

/// One recipe's row of the calibration report.
struct CalibrationRow {
  std::string name;
  double measured_tokens_per_s_per_gpu = 0;
  double fitted_tokens_per_s_per_gpu = 0;  ///< predicted with parameters fitted on all recipes
  double leave_one_out_tokens_per_s_per_gpu =
      0;                           ///< predicted with parameters fitted on the others
  double leave_one_out_error = 0;  ///< (leave-one-out - measured) / measured
};

/// The fitted parameters and the per-recipe report.
struct SpeedCalibration {
  SpeedParameters parameters;  ///< fitted on every measured recipe
  std::vector<CalibrationRow> rows;
  /// The parameters that were fitted (identifiable from the data); the rest keep their priors.
  std::vector<std::string> fitted;
};

/// Fits `parameters` (starting from `prior`) to minimise the squared log error of predicted vs
/// measured tokens/s per GPU over `measured`, then refits leaving each recipe out. Deterministic.
/// An empty `measured` gives the prior and no rows.
///
/// Which parameters are fitted: in the order matmul_efficiency, recompute_unit_overhead_s,
/// flex_dispatcher_factor, communication_efficiency, attention_efficiency, layer_overhead_s, a
/// parameter is fitted when it changes some recipe's prediction in a way the parameters already
/// chosen cannot (its column of d log(prediction) / d parameter at the prior is not within 5% of
/// their span), and at most n of them for n recipes. The others keep their priors. The fit is
/// Levenberg-Marquardt within bounds (efficiencies and the flex factor in log space, overheads in
/// seconds). Each leave-one-out refit chooses its parameters the same way.
SpeedCalibration calibrate_speed_model(const std::vector<MeasuredLayout>& measured,
                                       const SpeedParameters& prior = {});

}  // namespace openrecipes
