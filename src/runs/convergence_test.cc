#include "runs/convergence.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "runs/convergence_block.h"

namespace openrecipes {
namespace {

LossSeries series(const std::vector<double>& losses, const std::string& name) {
  LossSeries s{name, "test", {}};
  for (std::size_t i = 0; i < losses.size(); ++i) s.loss[static_cast<std::int64_t>(i)] = losses[i];
  return s;
}

// A falling curve of 20 steps around `level`.
std::vector<double> curve(double level) {
  std::vector<double> out;
  for (int i = 0; i < 20; ++i)
    out.push_back(level * (1 + 0.5 * std::exp(-i / 5.0)) + 0.002 * ((i * 7) % 5));
  return out;
}

bool failed_with(const ConvergenceResult& result, const std::string& words) {
  for (const std::string& failure : result.failures) {
    if (failure.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(Convergence, NearlyIdenticalCurvesPass) {
  std::vector<double> reference = curve(1.0), candidate = reference;
  for (std::size_t i = 0; i < candidate.size(); ++i)
    candidate[i] *= 1 + 1e-4 * static_cast<double>(i % 3);
  ConvergenceResult result = compare_convergence(series(candidate, "c"), series(reference, "r"));
  EXPECT_TRUE(result.passed) << (result.failures.empty() ? "" : result.failures[0]);
  EXPECT_EQ(result.steps, 20);
  EXPECT_EQ(result.points.size(), 16u);  // the first int(20 x 0.2) = 4 steps are not scored
  EXPECT_EQ(result.points.front().step, 4);
  EXPECT_GT(result.correlation, 0.999);
  EXPECT_EQ(result.pointwise_failures, 0);
}

TEST(Convergence, ToleranceFollowsTheReferenceLoss) {
  std::vector<double> reference = {3.0, 3.0, 3.0, 3.0, 3.0, 2.5, 1.0, 0.4, 0.3, 0.2};
  ConvergenceResult result = compare_convergence(series(reference, "c"), series(reference, "r"));
  ASSERT_EQ(result.points.size(), 8u);
  EXPECT_DOUBLE_EQ(result.points[3].tolerance, 0.10);  // 2.5 > 2.0
  EXPECT_DOUBLE_EQ(result.points[4].tolerance, 0.05);  // 1.0 > 0.5
  EXPECT_DOUBLE_EQ(result.points[5].tolerance, 0.02);  // 0.4
}

TEST(Convergence, LowCorrelationFails) {
  std::vector<double> reference = curve(1.0), candidate = reference;
  std::reverse(candidate.begin() + 4, candidate.end());
  ConvergenceResult result = compare_convergence(series(candidate, "c"), series(reference, "r"));
  EXPECT_FALSE(result.passed);
  EXPECT_TRUE(failed_with(result, "correlation"));
}

TEST(Convergence, TooManyPointsOutOfToleranceFail) {
  std::vector<double> reference = curve(1.0), candidate = reference;
  for (std::size_t i = 10; i < 13; ++i) candidate[i] *= 1.08;  // 3 of 16 points beyond 5%
  ConvergenceResult result = compare_convergence(series(candidate, "c"), series(reference, "r"));
  EXPECT_EQ(result.pointwise_failures, 3);
  EXPECT_TRUE(failed_with(result, "3 of 16 scored steps out of the pointwise tolerance"));
  EXPECT_GT(result.worst_step_tolerance_ratio, 1.5);
}

TEST(Convergence, OnePointOutIsTolerated) {
  std::vector<double> reference = curve(1.0), candidate = reference;
  candidate[10] *= 1.06;
  ConvergenceResult result = compare_convergence(series(candidate, "c"), series(reference, "r"));
  EXPECT_EQ(result.pointwise_failures, 1);
  EXPECT_FALSE(failed_with(result, "pointwise"));
}

TEST(Convergence, AFinalLossApartFails) {
  std::vector<double> reference = curve(1.0), candidate = reference;
  candidate.back() *= 1.06;
  ConvergenceResult result = compare_convergence(series(candidate, "c"), series(reference, "r"));
  EXPECT_TRUE(failed_with(result, "final loss differs by 0.06"));
}

// By Chebyshev's inequality fewer than 1/9 of any residuals lie beyond 3 sigma, so with the 10%
// limit this criterion can fail only when 10-11% of the points are outliers: here 2 of 19, one
// above and one below, with every other residual 0.
TEST(Convergence, ResidualOutliersBeyondThreeSigmaFail) {
  std::vector<double> reference, candidate;
  for (int i = 0; i < 23; ++i) reference.push_back(2.0 - i * 0.02);  // 23 steps: 19 scored
  candidate = reference;
  candidate[10] += 0.03;
  candidate[16] -= 0.03;
  ConvergenceResult result = compare_convergence(series(candidate, "c"), series(reference, "r"));
  ASSERT_EQ(result.points.size(), 19u);
  EXPECT_EQ(result.outliers, 2);
  EXPECT_EQ(result.pointwise_failures, 0);
  EXPECT_TRUE(failed_with(result, "2 of 19 residuals beyond 3 sigma"));
  candidate[16] = reference[16];  // one outlier of 19 is within the 10%
  EXPECT_FALSE(
      failed_with(compare_convergence(series(candidate, "c"), series(reference, "r")), "sigma"));
}

TEST(Convergence, AMissingStepOrANanFailsInsteadOfPassingSilently) {
  std::vector<double> reference = curve(1.0);
  LossSeries candidate = series(reference, "cand.log");
  candidate.loss.erase(12);
  ConvergenceResult missing = compare_convergence(candidate, series(reference, "ref.log"));
  EXPECT_FALSE(missing.passed);
  EXPECT_TRUE(failed_with(missing, "steps missing from the candidate (cand.log): 12"));

  LossSeries with_nan = series(reference, "cand.log");
  with_nan.loss[15] = std::nan("");
  ConvergenceResult nan = compare_convergence(with_nan, series(reference, "ref.log"));
  EXPECT_FALSE(nan.passed);
  EXPECT_TRUE(failed_with(nan, "NaN or Inf loss at steps 15"));

  LossSeries gap = series(reference, "cand.log"), gap_reference = series(reference, "ref.log");
  gap.loss.erase(3);
  gap_reference.loss.erase(3);
  EXPECT_TRUE(
      failed_with(compare_convergence(gap, gap_reference), "steps missing from both runs: 3"));
}

TEST(Convergence, ASampledReferenceIsComparedAtItsStepsAlone) {
  std::vector<double> reference = curve(1.0);
  LossSeries golden{"golden.json", "golden values", {}, true};
  for (std::int64_t step : {0, 4, 9, 14, 19}) golden.loss[step] = reference[step];
  ConvergenceResult result = compare_convergence(series(reference, "c"), golden);
  EXPECT_TRUE(result.passed) << (result.failures.empty() ? "" : result.failures[0]);
  EXPECT_EQ(result.steps, 5);
  EXPECT_EQ(result.points.size(), 4u);  // int(5 x 0.2) = 1 not scored
  // A step the golden values list is still missing from the candidate.
  LossSeries cut = series(reference, "c");
  cut.loss.erase(14);
  EXPECT_TRUE(
      failed_with(compare_convergence(cut, golden), "steps missing from the candidate (c): 14"));
}

TEST(Convergence, StepsFarApartAreCountedNotListedOneByOne) {
  std::vector<double> reference = curve(1.0);
  LossSeries candidate = series(reference, "c"), far = series(reference, "r");
  candidate.loss[4000000000] = 1.0;
  far.loss[4000000000] = 1.0;
  ConvergenceResult result = compare_convergence(candidate, far);
  EXPECT_TRUE(failed_with(
      result,
      "steps missing from both runs: 20, 21, 22, 23, 24, 25, 26, 27, 28, 29 and 3999999970 more"))
      << (result.failures.empty() ? "" : result.failures[0]);
}

TEST(Convergence, ConstantOrTooShortSeriesFail) {
  ConvergenceResult flat = compare_convergence(series(std::vector<double>(20, 1.0), "c"),
                                               series(std::vector<double>(20, 1.0), "r"));
  EXPECT_FALSE(flat.passed);
  EXPECT_TRUE(failed_with(flat, "correlation undefined"));
  EXPECT_FALSE(compare_convergence(series({1.0}, "c"), series({1.0}, "r")).passed);
  // The block states the missing correlation as null, which the recipe schema takes (a comment
  // in its place left a required field out).
  const std::string block = convergence_block_yaml(flat);
  EXPECT_NE(block.find("\n    correlation: null"), std::string::npos) << block;
  EXPECT_NE(block.find("\n    result: fail\n"), std::string::npos) << block;
}

}  // namespace
}  // namespace openrecipes
