#include "tune/session_learning.h"

#include <gtest/gtest.h>

#include <cmath>

namespace openrecipes {
namespace {

TEST(SessionLearning, NoRunLeavesThePlannerAsItIs) {
  SessionCorrection correction = session_correction({});
  EXPECT_EQ(correction.runs, 0);
  EXPECT_EQ(correction.scale, 1);
  EXPECT_FALSE(correction.band);
  EXPECT_FALSE(correction.mape);
}

TEST(SessionLearning, OneRunGivesTheScaleButNoBand) {
  // Predicted 10,000, measured 16,000: the pair runs 1.6 times faster than the planner says.
  SessionCorrection correction = session_correction({{10000, 16000}});
  EXPECT_DOUBLE_EQ(correction.scale, 1.6);
  EXPECT_FALSE(correction.band);
  ASSERT_TRUE(correction.mape);
  EXPECT_NEAR(*correction.mape, 0, 1e-12);
}

TEST(SessionLearning, TheScaleIsTheGeometricMeanAndTheBandTheLeaveOneRunOutError) {
  // Ratios 1.5 and 2.0 (hand computed): scale sqrt(3) = 1.7320508; leaving out run 1 predicts
  // it with 2.0: (10,000 x 2 - 15,000) / 15,000 = 1/3; leaving out run 2 predicts it with 1.5:
  // (5,000 x 1.5 - 10,000) / 10,000 = -1/4; RMS = sqrt((1/9 + 1/16) / 2) = 0.2946278.
  SessionCorrection correction = session_correction({{10000, 15000}, {5000, 10000}});
  EXPECT_NEAR(correction.scale, std::sqrt(3.0), 1e-12);
  ASSERT_TRUE(correction.band);
  EXPECT_NEAR(*correction.band, std::sqrt((1.0 / 9 + 1.0 / 16) / 2), 1e-12);
  // In-sample: |10,000 sqrt 3 - 15,000| / 15,000 and |5,000 sqrt 3 - 10,000| / 10,000, averaged.
  double expected = (std::abs(10000 * std::sqrt(3.0) - 15000) / 15000 +
                     std::abs(5000 * std::sqrt(3.0) - 10000) / 10000) /
                    2;
  EXPECT_NEAR(*correction.mape, expected, 1e-12);
}

TEST(SessionLearning, TheBandNeverFallsBelowTheFloor) {
  SessionCorrection correction = session_correction({{10000, 16000}, {8000, 12800}});
  ASSERT_TRUE(correction.band);
  EXPECT_DOUBLE_EQ(*correction.band, kSessionBandFloor);
}

TEST(SessionLearning, TheCorrectionScalesEveryRankedLayoutAndReplacesItsBand) {
  LayoutPlan plan;
  plan.search.ranked.resize(2);
  plan.search.ranked[0].speed.tokens_per_s_per_gpu = 1000;
  plan.search.ranked[1].speed.tokens_per_s_per_gpu = 500;
  plan.ranked_bands.resize(2);
  plan.ranked_bands[1].unlike_measured = true;
  plan.ranked_bands[1].relative_error = 0.7;
  SessionCorrection one = session_correction({{10000, 12000}});
  LayoutPlan scaled = plan;
  apply_session_correction(scaled, one);
  EXPECT_DOUBLE_EQ(scaled.search.ranked[0].speed.tokens_per_s_per_gpu, 1200);
  EXPECT_DOUBLE_EQ(scaled.search.ranked[1].speed.tokens_per_s_per_gpu, 600);
  EXPECT_DOUBLE_EQ(scaled.ranked_bands[1].relative_error, 0.7);  // one run: the planner's band
  apply_session_correction(plan, session_correction({{10000, 15000}, {5000, 10000}}));
  EXPECT_FALSE(plan.ranked_bands[1].unlike_measured);
  // Pooled: sqrt((1 x 0.7^2 + 2 x 0.2946278^2) / 3) = 0.4905 (hand computed).
  EXPECT_NEAR(plan.ranked_bands[1].relative_error,
              std::sqrt((0.49 + 2 * (1.0 / 9 + 1.0 / 16) / 2) / 3), 1e-12);
  EXPECT_EQ(plan.ranked_bands[0].nearest, "this session's runs");
}

}  // namespace
}  // namespace openrecipes
