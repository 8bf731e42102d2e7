#include "plan/prediction_band.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace openrecipes {
namespace {

double log2_ratio(double a, double b) { return a > 0 && b > 0 ? std::abs(std::log2(a / b)) : 0; }

}  // namespace

double layout_distance(const MeasuredLayout& a, const MeasuredLayout& b) {
  double d = 0;
  if (a.model.is_moe() != b.model.is_moe()) d += 2;
  if (a.cluster.gpu.type != b.cluster.gpu.type) d += 1;
  if (a.workload.precision != b.workload.precision) d += 1;
  if (a.model.name != b.model.name) d += 0.5;
  const Layout &x = a.layout, &y = b.layout;
  d += 0.5 *
       (log2_ratio(a.cluster.gpus, b.cluster.gpus) + log2_ratio(x.tp, y.tp) +
        log2_ratio(x.pp * std::max(x.vpp, 1), y.pp * std::max(y.vpp, 1)) + log2_ratio(x.cp, y.cp) +
        log2_ratio(x.ep, y.ep) + log2_ratio(x.rows_per_microbatch, y.rows_per_microbatch));
  return d;
}

PredictionBand prediction_band(const SpeedCalibration& calibration,
                               const std::vector<MeasuredLayout>& measured,
                               const MeasuredLayout& candidate) {
  PredictionBand band;
  if (calibration.rows.size() != measured.size() || measured.empty()) {
    band.unlike_measured = true;
    return band;
  }
  std::vector<double> distance;
  for (const MeasuredLayout& m : measured) distance.push_back(layout_distance(candidate, m));
  std::vector<std::size_t> order(measured.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return distance[a] < distance[b]; });
  std::size_t n = std::min<std::size_t>(kBandRows, order.size());
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double e = calibration.rows[order[i]].leave_one_out_error;
    sum += e * e;
  }
  band.rows = static_cast<int>(n);
  band.relative_error = std::sqrt(sum / static_cast<double>(n));
  band.nearest = measured[order[0]].name;
  band.nearest_distance = distance[order[0]];
  band.unlike_measured = band.nearest_distance > kUnlikeDistance;
  return band;
}

PredictionBand prediction_band(const SpeedCalibration& calibration,
                               const std::vector<MeasuredLayout>& measured, const ModelShape& model,
                               const ClusterShape& cluster, const PlanWorkload& workload,
                               const Layout& layout) {
  MeasuredLayout candidate;
  candidate.model = model;
  candidate.cluster = cluster;
  candidate.workload = workload;
  candidate.layout = layout;
  return prediction_band(calibration, measured, candidate);
}

const MeasuredLayout* best_measured(const std::vector<MeasuredLayout>& measured,
                                    const std::string& model, const std::string& gpu_type,
                                    const PlanWorkload& workload) {
  const MeasuredLayout* best = nullptr;
  for (const MeasuredLayout& m : measured) {
    if (m.model.name != model || m.cluster.gpu.type != gpu_type ||
        m.workload.precision != workload.precision || m.workload.row_tokens != workload.row_tokens)
      continue;
    if (!best || m.tokens_per_s_per_gpu > best->tokens_per_s_per_gpu) best = &m;
  }
  return best;
}

}  // namespace openrecipes
