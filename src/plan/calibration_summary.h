// The calibration's error figures: mean absolute leave-one-model-out error overall and by group,
// and the rank agreement within each (model, GPU type, GPU count).
#pragma once

#include "plan/speed_calibration.h"

namespace openrecipes {

/// Fills `calibration`'s mape, groups (dense and MoE; each GPU type; each precision; catalog and
/// published rows) and ranks (Spearman's rho of leave-one-out predictions against measurements,
/// for every group key with two or more rows; ties ranked by their mean rank) from its rows.
void summarize_calibration(SpeedCalibration& calibration);

/// Spearman's rank correlation of `a` and `b` (same length, at least 2): the Pearson correlation
/// of their ranks, ties given their mean rank. NaN (undefined, not "no agreement") when either has
/// no spread: every prediction, or every measurement, the same.
double spearman_rho(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace openrecipes
