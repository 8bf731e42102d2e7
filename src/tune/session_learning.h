// The "learn" step of tuning (docs/tune.md, "Learning from the session's runs"). After each
// result the speed model is refitted on the catalog, the published measurements and this
// session's runs (calibrate_speed_model); what the shared physics cannot absorb from a handful of
// runs on one cluster (its software, its clocks, its network) is one factor for the pair,
// measured over predicted, and the session's own spread of errors replaces the planner's band
// once two runs give one.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "plan/layout_plan.h"

namespace openrecipes {

/// A band is never narrower than this (fraction): the step-time variation of one run under the
/// protocol, which the catalog's recipes report as 1-4% CV (`result.step_time_cv_percent`), plus
/// margin for the window's mean.
inline constexpr double kSessionBandFloor = 0.05;

/// How many session runs the planner's own band is worth when the two are pooled.
inline constexpr double kPriorRuns = 1;

/// What the session's measured runs say about the planner's predictions for this pair.
struct SessionCorrection {
  int runs = 0;      ///< measured runs it was taken from
  double scale = 1;  ///< geometric mean of measured / predicted tokens/s per GPU; 1 with no run
  /// Root mean square of the leave-one-run-out errors (each run predicted with the scale of the
  /// others), at least kSessionBandFloor; nullopt with fewer than two runs.
  std::optional<double> band;
  /// The band a ranked layout gets: its planner band b0 (the prior, worth kPriorRuns runs) pooled
  /// with the session's n runs, sqrt((kPriorRuns b0^2 + n band^2) / (kPriorRuns + n)), so a few
  /// lucky runs do not shrink it to the floor while the refit may still move the predictions.
  double pooled_band(double planner_band) const;
  /// Mean |predicted x scale - measured| / measured over the runs (fraction); nullopt with none.
  std::optional<double> mape;
};

/// The correction from (predicted, measured) tokens/s per GPU of each measured run, both > 0,
/// predicted with the refitted parameters and not yet corrected.
SessionCorrection session_correction(const std::vector<std::pair<double, double>>& runs);

/// `plan` with every ranked layout's predicted tokens/s per GPU multiplied by the scale and,
/// when the correction has a band, every ranked band replaced by the pooled band (pooled_band of
/// its own; no longer unlike anything measured: the session measured this pair).
void apply_session_correction(LayoutPlan& plan, const SessionCorrection& correction);

}  // namespace openrecipes
