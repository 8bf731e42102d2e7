#include "runs/convergence.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

namespace openrecipes {
namespace {

std::string step_list(const std::vector<std::int64_t>& steps) {
  std::string out;
  for (std::size_t i = 0; i < steps.size() && i < 10; ++i)
    out += (i ? ", " : "") + std::to_string(steps[i]);
  if (steps.size() > 10) out += fmt::format(" and {} more", steps.size() - 10);
  return out;
}

// Pearson's r; NaN when either series has no spread.
double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  double mean_a = 0, mean_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) mean_a += a[i], mean_b += b[i];
  mean_a /= static_cast<double>(a.size());
  mean_b /= static_cast<double>(b.size());
  double covariance = 0, var_a = 0, var_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    covariance += (a[i] - mean_a) * (b[i] - mean_b);
    var_a += (a[i] - mean_a) * (a[i] - mean_a);
    var_b += (b[i] - mean_b) * (b[i] - mean_b);
  }
  if (var_a == 0 || var_b == 0) return std::nan("");
  return covariance / std::sqrt(var_a * var_b);
}

double relative_difference(double candidate, double reference) {
  return reference != 0 ? std::fabs(candidate - reference) / std::fabs(reference)
                        : std::fabs(candidate);
}

// The steps both series have, in order; appends a failure for each step missing from either run
// (or from both, between present steps) and for NaN or Inf losses.
// The steps to compare: every step of either series, or, where a series is sampled (golden
// values every few steps), only the steps it lists (both list, when both are).
std::set<std::int64_t> steps_to_compare(const LossSeries& candidate, const LossSeries& reference) {
  std::set<std::int64_t> all;
  for (const LossSeries* series : {&candidate, &reference}) {
    const LossSeries* other = series == &candidate ? &reference : &candidate;
    for (const auto& [step, loss] : series->loss) {
      if (!other->sampled || other->loss.count(step) > 0) all.insert(step);
    }
  }
  return all;
}

std::vector<std::int64_t> common_steps(const LossSeries& candidate, const LossSeries& reference,
                                       std::vector<std::string>& failures) {
  std::set<std::int64_t> all = steps_to_compare(candidate, reference);
  bool sampled = candidate.sampled || reference.sampled;
  std::vector<std::int64_t> missing_candidate, missing_reference, not_finite;
  std::vector<std::int64_t> steps;
  for (std::int64_t step : all) {
    auto c = candidate.loss.find(step), r = reference.loss.find(step);
    if (c == candidate.loss.end()) missing_candidate.push_back(step);
    if (r == reference.loss.end()) missing_reference.push_back(step);
    if (c == candidate.loss.end() || r == reference.loss.end()) continue;
    if (!std::isfinite(c->second) || !std::isfinite(r->second)) not_finite.push_back(step);
    steps.push_back(step);
  }
  if (!all.empty() && !sampled) {
    // Walk the gaps between present steps (never the whole range: steps may be far apart).
    std::vector<std::int64_t> gaps;
    std::int64_t missing = 0, previous = *all.begin();
    for (std::int64_t step : all) {
      if (step > previous + 1) {
        missing += step - previous - 1;
        for (std::int64_t s = previous + 1; s < step && gaps.size() < 10; ++s) gaps.push_back(s);
      }
      previous = step;
    }
    if (missing > 0) {
      std::string listed = step_list(gaps);
      if (missing > static_cast<std::int64_t>(gaps.size())) {
        listed += fmt::format(" and {} more", missing - static_cast<std::int64_t>(gaps.size()));
      }
      failures.push_back(fmt::format("steps missing from both runs: {}", listed));
    }
  }
  if (!missing_candidate.empty()) {
    failures.push_back(fmt::format("steps missing from the candidate ({}): {}", candidate.path,
                                   step_list(missing_candidate)));
  }
  if (!missing_reference.empty()) {
    failures.push_back(fmt::format("steps missing from the reference ({}): {}", reference.path,
                                   step_list(missing_reference)));
  }
  if (!not_finite.empty())
    failures.push_back(fmt::format("NaN or Inf loss at steps {}", step_list(not_finite)));
  return steps;
}

// Pointwise tolerance and final-loss criteria over result.points (c, r: their losses).
void check_pointwise(const std::vector<double>& c, const std::vector<double>& r,
                     const ConvergenceThresholds& t, ConvergenceResult& result) {
  double n = static_cast<double>(result.points.size());
  std::vector<std::int64_t> out_of_tolerance;
  for (const ScoredPoint& p : result.points) {
    double ratio = p.tolerance > 0 ? p.relative_difference / p.tolerance
                                   : (p.relative_difference > 0 ? HUGE_VAL : 0.0);
    result.worst_step_tolerance_ratio = std::max(result.worst_step_tolerance_ratio, ratio);
    if (p.relative_difference > p.tolerance) out_of_tolerance.push_back(p.step);
  }
  result.pointwise_failures = static_cast<int>(out_of_tolerance.size());
  if (result.pointwise_failures / n > t.max_outlier_ratio) {
    result.failures.push_back(
        fmt::format("{} of {} scored steps out of the pointwise tolerance (more than {:.0f}%): {}",
                    result.pointwise_failures, result.points.size(), 100 * t.max_outlier_ratio,
                    step_list(out_of_tolerance)));
  }

  result.final_loss_difference = relative_difference(c.back(), r.back());
  if (result.final_loss_difference > t.final_loss_tolerance) {
    result.failures.push_back(fmt::format("final loss differs by {:.4f} (> {}) at step {}",
                                          result.final_loss_difference, t.final_loss_tolerance,
                                          result.points.back().step));
  }
}

// Residuals beyond outlier_sigmas population standard deviations of their mean (numpy's std).
void check_outliers(const std::vector<double>& c, const std::vector<double>& r,
                    const ConvergenceThresholds& t, ConvergenceResult& result) {
  double n = static_cast<double>(result.points.size());
  double mean = 0;
  for (std::size_t i = 0; i < c.size(); ++i) mean += c[i] - r[i];
  mean /= n;
  double variance = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    variance += (c[i] - r[i] - mean) * (c[i] - r[i] - mean);
  double sigma = std::sqrt(variance / n);
  std::vector<std::int64_t> outlier_steps;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (std::fabs(c[i] - r[i] - mean) > t.outlier_sigmas * sigma) {
      result.points[i].outlier = true;
      outlier_steps.push_back(result.points[i].step);
    }
  }
  result.outliers = static_cast<int>(outlier_steps.size());
  if (result.outliers / n > t.max_outlier_ratio) {
    result.failures.push_back(
        fmt::format("{} of {} residuals beyond {} sigma (more than {:.0f}%): {}", result.outliers,
                    result.points.size(), t.outlier_sigmas, 100 * t.max_outlier_ratio,
                    step_list(outlier_steps)));
  }
}

// Fills the result's per-step losses when the compared steps are exactly 0 .. n - 1, every loss
// finite, in neither a sampled series.
void every_step_losses(const LossSeries& candidate, const LossSeries& reference,
                       const std::vector<std::int64_t>& steps, ConvergenceResult& result) {
  if (candidate.sampled || reference.sampled) return;
  std::vector<double> c, r;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    double cv = candidate.loss.at(steps[i]), rv = reference.loss.at(steps[i]);
    if (steps[i] != static_cast<std::int64_t>(i) || !std::isfinite(cv) || !std::isfinite(rv))
      return;
    c.push_back(cv);
    r.push_back(rv);
  }
  result.candidate_losses = std::move(c);
  result.reference_losses = std::move(r);
}

}  // namespace

ConvergenceResult compare_convergence(const LossSeries& candidate, const LossSeries& reference,
                                      const ConvergenceThresholds& t) {
  ConvergenceResult result;
  std::vector<std::int64_t> steps = common_steps(candidate, reference, result.failures);
  result.steps = static_cast<std::int64_t>(steps.size());
  every_step_losses(candidate, reference, steps, result);

  // Megatron-Bridge: skip int(n x fraction) leading points, then score the rest.
  std::size_t skip =
      static_cast<std::size_t>(static_cast<double>(steps.size()) * t.skip_first_fraction);
  std::vector<double> c, r;
  for (std::size_t i = skip; i < steps.size(); ++i) {
    double cv = candidate.loss.at(steps[i]), rv = reference.loss.at(steps[i]);
    if (!std::isfinite(cv) || !std::isfinite(rv)) continue;
    double tolerance = rv > 2.0   ? t.high_loss_tolerance
                       : rv > 0.5 ? t.medium_loss_tolerance
                                  : t.low_loss_tolerance;
    result.points.push_back({steps[i], cv, rv, relative_difference(cv, rv), tolerance, false});
    c.push_back(cv);
    r.push_back(rv);
  }
  if (result.points.size() < 2) {
    result.failures.push_back(fmt::format("only {} scored step{} (at least 2 are needed)",
                                          result.points.size(),
                                          result.points.size() == 1 ? "" : "s"));
    result.correlation = std::nan("");
    result.passed = false;
    return result;
  }

  result.correlation = pearson(c, r);
  if (std::isnan(result.correlation)) {
    result.failures.push_back(
        "correlation undefined: a loss series is constant over the scored steps");
  } else if (result.correlation < t.correlation) {
    result.failures.push_back(
        fmt::format("correlation {:.6f} < {}", result.correlation, t.correlation));
  }
  check_pointwise(c, r, t, result);
  check_outliers(c, r, t, result);
  result.passed = result.failures.empty();
  return result;
}

}  // namespace openrecipes
