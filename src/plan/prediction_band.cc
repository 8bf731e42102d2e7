#include "plan/prediction_band.h"

#include <algorithm>
#include <cmath>

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

namespace {

// The band of `candidate` from the rows of `measured` (calibration.rows in the same order) that
// `use` admits; a zero band marked unlike_measured when there is none.
template <typename Use>
PredictionBand band_from(const SpeedCalibration& calibration,
                         const std::vector<MeasuredLayout>& measured,
                         const MeasuredLayout& candidate, Use use) {
  PredictionBand band;
  band.unlike_measured = true;
  if (calibration.rows.size() != measured.size()) return band;
  std::vector<std::pair<double, std::size_t>> nearest;  // distance, row
  for (std::size_t i = 0; i < measured.size(); ++i)
    if (use(i)) nearest.emplace_back(layout_distance(candidate, measured[i]), i);
  if (nearest.empty()) return band;
  std::stable_sort(nearest.begin(), nearest.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t n = std::min<std::size_t>(kBandRows, nearest.size());
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double e = calibration.rows[nearest[i].second].leave_one_out_error;
    sum += e * e;
  }
  band.rows = static_cast<int>(n);
  band.relative_error = std::sqrt(sum / static_cast<double>(n));
  band.nearest = measured[nearest[0].second].name;
  band.nearest_distance = nearest[0].first;
  band.unlike_measured = band.nearest_distance > kUnlikeDistance;
  return band;
}

}  // namespace

PredictionBand prediction_band(const SpeedCalibration& calibration,
                               const std::vector<MeasuredLayout>& measured,
                               const MeasuredLayout& candidate) {
  return band_from(calibration, measured, candidate, [](std::size_t) { return true; });
}

BandCoverage band_coverage(const SpeedCalibration& calibration,
                           const std::vector<MeasuredLayout>& measured) {
  BandCoverage coverage;
  if (calibration.rows.size() != measured.size()) return coverage;
  std::vector<double> bands;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const std::string& model = measured[i].model.name;
    PredictionBand band = band_from(calibration, measured, measured[i],
                                    [&](std::size_t j) { return measured[j].model.name != model; });
    if (band.rows == 0) continue;
    bands.push_back(band.relative_error);
    ++coverage.rows;
    if (std::abs(calibration.rows[i].leave_one_out_error) <= band.relative_error) ++coverage.within;
  }
  if (!bands.empty()) {
    std::nth_element(bands.begin(), bands.begin() + static_cast<std::ptrdiff_t>(bands.size() / 2),
                     bands.end());
    coverage.median_band = bands[bands.size() / 2];
  }
  return coverage;
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
