// The convergence comparison of a candidate run with its reference arm: Megatron-Bridge's
// validate_convergence (scripts/performance/utils/evaluate.py) with the thresholds its
// performance pipeline passes, except that a step missing from either run, or a NaN or Inf loss,
// fails instead of passing silently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runs/loss_series.h"

namespace openrecipes {

/// Thresholds; the defaults are Megatron-Bridge's pipeline settings (issue 7).
struct ConvergenceThresholds {
  double skip_first_fraction = 0.2;   ///< leading fraction of the steps not scored (floor of n x f)
  double correlation = 0.95;          ///< minimum Pearson correlation
  double high_loss_tolerance = 0.10;  ///< relative, where the reference loss > 2.0
  double medium_loss_tolerance = 0.05;  ///< relative, where the reference loss > 0.5
  double low_loss_tolerance = 0.02;     ///< relative, elsewhere
  double max_outlier_ratio =
      0.10;  ///< most points allowed out of tolerance, and most 3-sigma outliers
  double final_loss_tolerance = 0.05;  ///< relative difference of the last losses
  double outlier_sigmas = 3.0;  ///< residuals further than this x std from their mean are outliers
};

/// One scored step.
struct ScoredPoint {
  std::int64_t step = 0;
  double candidate = 0;
  double reference = 0;
  double relative_difference = 0;  ///< |c - r| / |r| (|c| when r = 0)
  double tolerance = 0;
  bool outlier = false;  ///< residual beyond outlier_sigmas
};

/// The comparison's outcome.
struct ConvergenceResult {
  bool passed = false;
  std::int64_t steps = 0;           ///< steps compared (both runs, before skipping)
  std::vector<ScoredPoint> points;  ///< the scored steps
  double correlation = 0;           ///< NaN when a series is constant
  double final_loss_difference = 0;
  int pointwise_failures = 0;
  double worst_step_tolerance_ratio = 0;  ///< max over points of relative difference / tolerance
  int outliers = 0;
  std::vector<std::string> failures;  ///< one sentence per failed criterion, naming steps
  /// Both runs' loss at every step, step 0 first (the recipe's `correctness.convergence.losses`),
  /// when both series hold each step from 0 to steps - 1 with a finite loss; empty otherwise
  /// (a sampled series, a gap, a run that starts later, NaN or Inf).
  std::vector<double> candidate_losses, reference_losses;
};

/// Compares `candidate` with `reference` over the steps either has. Never throws for bad data:
/// missing steps, non-finite losses and too few points are failures in the result.
ConvergenceResult compare_convergence(const LossSeries& candidate, const LossSeries& reference,
                                      const ConvergenceThresholds& thresholds = {});

}  // namespace openrecipes
