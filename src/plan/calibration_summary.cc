#include "plan/calibration_summary.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

namespace openrecipes {
namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = mean_rank;
    i = j + 1;
  }
  return r;
}

GroupError group_error(const std::string& name, const std::vector<CalibrationRow>& rows,
                       const std::function<bool(const CalibrationRow&)>& in) {
  GroupError g{name, 0, 0};
  for (const CalibrationRow& r : rows) {
    if (!in(r)) continue;
    ++g.rows;
    g.mape += std::abs(r.leave_one_out_error);
  }
  if (g.rows > 0) g.mape /= g.rows;
  return g;
}

}  // namespace

double spearman_rho(const std::vector<double>& a, const std::vector<double>& b) {
  const double undefined = std::numeric_limits<double>::quiet_NaN();
  if (a.size() != b.size() || a.size() < 2) return undefined;
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double n = static_cast<double>(a.size());
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : undefined;
}

void summarize_calibration(SpeedCalibration& c) {
  const std::vector<CalibrationRow>& rows = c.rows;
  c.groups.clear();
  c.ranks.clear();
  c.mape = group_error("all", rows, [](const CalibrationRow&) { return true; }).mape;
  c.groups.push_back(group_error("dense", rows, [](const CalibrationRow& r) { return !r.moe; }));
  c.groups.push_back(group_error("MoE", rows, [](const CalibrationRow& r) { return r.moe; }));
  std::vector<std::string> gpus, precisions;
  for (const CalibrationRow& r : rows) {
    if (std::find(gpus.begin(), gpus.end(), r.gpu_type) == gpus.end()) gpus.push_back(r.gpu_type);
    if (std::find(precisions.begin(), precisions.end(), r.precision) == precisions.end())
      precisions.push_back(r.precision);
  }
  for (const std::string& g : gpus)
    c.groups.push_back(
        group_error("GPU " + g, rows, [&](const CalibrationRow& r) { return r.gpu_type == g; }));
  for (const std::string& p : precisions)
    c.groups.push_back(group_error("precision " + p, rows,
                                   [&](const CalibrationRow& r) { return r.precision == p; }));
  c.groups.push_back(
      group_error("catalog recipes", rows, [](const CalibrationRow& r) { return !r.published; }));
  c.groups.push_back(
      group_error("published", rows, [](const CalibrationRow& r) { return r.published; }));
  std::vector<std::string> keys;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_key;
  for (const CalibrationRow& r : rows) {
    if (!by_key.count(r.group_key)) keys.push_back(r.group_key);
    by_key[r.group_key].first.push_back(r.leave_one_out_tokens_per_s_per_gpu);
    by_key[r.group_key].second.push_back(r.measured_tokens_per_s_per_gpu);
  }
  for (const std::string& k : keys) {
    const auto& [predicted, measured] = by_key[k];
    if (predicted.size() < 2) continue;
    c.ranks.push_back({k, static_cast<int>(predicted.size()), spearman_rho(predicted, measured)});
  }
}

}  // namespace openrecipes
