#include "tune/session_learning.h"

#include <algorithm>
#include <cmath>

namespace openrecipes {

SessionCorrection session_correction(const std::vector<std::pair<double, double>>& runs) {
  SessionCorrection out;
  out.runs = static_cast<int>(runs.size());
  if (runs.empty()) return out;
  double sum_log = 0;
  for (const auto& [predicted, measured] : runs) sum_log += std::log(measured / predicted);
  out.scale = std::exp(sum_log / static_cast<double>(runs.size()));
  double absolute = 0;
  for (const auto& [predicted, measured] : runs)
    absolute += std::abs(predicted * out.scale - measured) / measured;
  out.mape = absolute / static_cast<double>(runs.size());
  if (runs.size() < 2) return out;
  double squares = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    double others =
        (sum_log - std::log(runs[i].second / runs[i].first)) / static_cast<double>(runs.size() - 1);
    double error = (runs[i].first * std::exp(others) - runs[i].second) / runs[i].second;
    squares += error * error;
  }
  out.band = std::max(kSessionBandFloor, std::sqrt(squares / static_cast<double>(runs.size())));
  return out;
}

double SessionCorrection::pooled_band(double planner_band) const {
  if (!band) return planner_band;
  double n = static_cast<double>(runs);
  return std::sqrt((kPriorRuns * planner_band * planner_band + n * *band * *band) /
                   (kPriorRuns + n));
}

void apply_session_correction(LayoutPlan& plan, const SessionCorrection& correction) {
  for (LayoutPrediction& prediction : plan.search.ranked)
    prediction.speed.tokens_per_s_per_gpu *= correction.scale;
  if (!correction.band) return;
  plan.ranked_bands.resize(plan.search.ranked.size());
  for (PredictionBand& band : plan.ranked_bands) {
    band.relative_error = correction.pooled_band(band.relative_error);
    band.rows = correction.runs;
    band.nearest = "this session's runs";
    band.nearest_distance = 0;
    band.unlike_measured = false;
  }
}

}  // namespace openrecipes
