#include "runs/step_offset.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace openrecipes {
namespace {

// The agreement of two series with the reference moved by `offset`.
struct Agreement {
  std::int64_t steps = 0;
  double mean_relative_difference = 0;
  double correlation = std::nan("");
};

Agreement agreement(const LossSeries& candidate, const LossSeries& reference, std::int64_t offset) {
  std::vector<double> c, r;
  for (const auto& [step, loss] : candidate.loss) {
    auto match = reference.loss.find(step - offset);
    if (match == reference.loss.end() || !std::isfinite(loss) || !std::isfinite(match->second))
      continue;
    c.push_back(loss);
    r.push_back(match->second);
  }
  Agreement a;
  a.steps = static_cast<std::int64_t>(c.size());
  if (c.empty()) return a;
  double n = static_cast<double>(c.size()), mean_c = 0, mean_r = 0, difference = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    mean_c += c[i] / n;
    mean_r += r[i] / n;
    difference += (r[i] != 0 ? std::fabs(c[i] - r[i]) / std::fabs(r[i]) : std::fabs(c[i])) / n;
  }
  a.mean_relative_difference = difference;
  double covariance = 0, var_c = 0, var_r = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    covariance += (c[i] - mean_c) * (r[i] - mean_r);
    var_c += (c[i] - mean_c) * (c[i] - mean_c);
    var_r += (r[i] - mean_r) * (r[i] - mean_r);
  }
  if (var_c > 0 && var_r > 0) a.correlation = covariance / std::sqrt(var_c * var_r);
  return a;
}

// Fewer steps than this say nothing about an offset.
constexpr std::int64_t kMinSteps = 4;
// Runs whose mean relative difference is below this already agree: not one step off.
constexpr double kAgreeing = 0.005;

}  // namespace

LossSeries shift_steps(const LossSeries& series, std::int64_t offset) {
  LossSeries shifted{series.path, series.source, {}, series.sampled};
  if (offset != 0) shifted.source += fmt::format(", steps shifted by {:+}", offset);
  for (const auto& [step, loss] : series.loss) {
    if (step + offset >= 0) shifted.loss.emplace(step + offset, loss);
  }
  return shifted;
}

std::optional<StepOffsetHint> detect_step_offset(const LossSeries& candidate,
                                                 const LossSeries& reference) {
  Agreement given = agreement(candidate, reference, 0);
  if (given.steps < kMinSteps || given.mean_relative_difference <= kAgreeing) return std::nullopt;
  std::optional<StepOffsetHint> best;
  for (std::int64_t offset : {-1, 1}) {
    Agreement shifted = agreement(candidate, reference, offset);
    bool better = shifted.steps >= kMinSteps &&
                  shifted.mean_relative_difference < 0.5 * given.mean_relative_difference &&
                  !(shifted.correlation < given.correlation);
    if (!better ||
        (best && shifted.mean_relative_difference >= best->shifted_mean_relative_difference))
      continue;
    best = StepOffsetHint{offset,
                          shifted.steps,
                          given.mean_relative_difference,
                          shifted.mean_relative_difference,
                          given.correlation,
                          shifted.correlation};
  }
  return best;
}

}  // namespace openrecipes
