// Writers for the speed model's calibration (`openrecipes plan --calibration`): JSON for scripts
// and aligned text for people.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "plan/speed_calibration.h"

namespace openrecipes {

/// The calibration as JSON: `parameters` (name -> value), `fitted` (per parameter: value, prior,
/// low, high, at_bound), `rows` (name, model, gpu_type, gpus group, precision, moe, published,
/// measured / fitted / leave-one-out tokens/s per GPU, leave_one_out_error as a fraction),
/// `mape` (fraction), `groups` (group, rows, mape), `ranks` (group, rows, spearman) and
/// `band_coverage` (rows, within, median_band as a fraction; zeros without the refits).
nlohmann::json calibration_to_json(const SpeedCalibration& calibration);

/// The calibration as text: one row per measured layout (measured, fitted, leave-one-model-out
/// prediction and error), then the parameters with their bounds, the MAPE overall and by group,
/// Spearman's rho within each (model, GPU type, GPU count) group, and the bands' coverage.
std::string calibration_text(const SpeedCalibration& calibration);

}  // namespace openrecipes
