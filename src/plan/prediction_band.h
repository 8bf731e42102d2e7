// How far a prediction can be trusted: the leave-one-model-out errors of the measured layouts
// nearest to it, and how it compares with the best layout measured for the same model and GPU.
#pragma once

#include <string>
#include <vector>

#include "plan/speed_calibration.h"

namespace openrecipes {

/// The error band of one prediction.
struct PredictionBand {
  /// Root mean square of the nearest rows' leave-one-model-out errors (fraction, e.g. 0.12 for
  /// +-12%); 0 when nothing was calibrated.
  double relative_error = 0;
  int rows = 0;                  ///< rows the band is taken from (at most kBandRows)
  std::string nearest;           ///< the nearest measured layout's name
  double nearest_distance = 0;   ///< layout_distance to it
  bool unlike_measured = false;  ///< nearest_distance above kUnlikeDistance
};

/// Rows a band is taken from: ten, for which the bands of the calibration's own rows, taken
/// from the other models' rows, hold 69% of those rows' leave-one-model-out errors, as one
/// standard deviation would hold 68% (five held 59%: the bands were too narrow; BandCoverage,
/// docs/planner.md).
inline constexpr int kBandRows = 10;
/// A layout farther than this from every measured one is "unlike anything measured": it differs
/// in kind (dense / MoE) or in more than about three of GPU type, precision, model, GPU count and
/// the parallel sizes.
inline constexpr double kUnlikeDistance = 2.5;

/// How unlike two measured situations are (0: the same model, GPU type, count, precision and
/// layout): 2 when one model is dense and the other MoE, 1 each for another GPU type or
/// precision, 0.5 for another model, and 0.5 x |log2 ratio| of the GPU counts and of each of TP,
/// PP x VPP, CP, EP and rows per micro-batch.
double layout_distance(const MeasuredLayout& a, const MeasuredLayout& b);

/// The band of a prediction for `candidate` (its tokens_per_s_per_gpu unused): the kBandRows
/// rows of `measured` nearest to it (layout_distance, ties in order), their leave-one-out errors
/// from `calibration` (whose rows are `measured`'s, in order). An empty calibration gives a zero
/// band marked unlike_measured.
PredictionBand prediction_band(const SpeedCalibration& calibration,
                               const std::vector<MeasuredLayout>& measured,
                               const MeasuredLayout& candidate);

/// prediction_band for `layout` of `model` on `cluster` under `workload`.
PredictionBand prediction_band(const SpeedCalibration& calibration,
                               const std::vector<MeasuredLayout>& measured, const ModelShape& model,
                               const ClusterShape& cluster, const PlanWorkload& workload,
                               const Layout& layout);

/// The coverage of the bands over `measured` (calibration.rows in the same order): for each row,
/// its band from the rows of the other models (prediction_band's rule without the row's own
/// model) against its leave-one-model-out error. Empty when the sizes differ or a model has
/// every row.
BandCoverage band_coverage(const SpeedCalibration& calibration,
                           const std::vector<MeasuredLayout>& measured);

/// The fastest measured layout of `model` on `gpu_type` at `workload`'s precision and row tokens
/// (any GPU count and global batch), or null.
const MeasuredLayout* best_measured(const std::vector<MeasuredLayout>& measured,
                                    const std::string& model, const std::string& gpu_type,
                                    const PlanWorkload& workload);

}  // namespace openrecipes
