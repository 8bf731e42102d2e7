#include "runs/step_offset.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

LossSeries read_fixture(const std::string& name) {
  Problems problems;
  std::optional<LossSeries> series =
      read_loss_series(testing::source_dir() + "/tests/fixtures/logs/" + name, problems);
  EXPECT_TRUE(series) << testing::describe(problems);
  return series.value_or(LossSeries{});
}

TEST(StepOffset, ShiftsStepsAndDropsThoseBelowZero) {
  LossSeries series{"s.csv", "CSV", {{0, 3.0}, {1, 2.0}, {2, 1.0}}};
  LossSeries back = shift_steps(series, -1);
  EXPECT_EQ(back.loss.size(), 2u);
  EXPECT_EQ(back.loss.at(0), 2.0);
  EXPECT_EQ(back.source, "CSV, steps shifted by -1");
  EXPECT_EQ(shift_steps(series, 2).loss.at(4), 1.0);
  EXPECT_EQ(shift_steps(series, 0).source, "CSV");
}

TEST(StepOffset, NoticesAReferenceCountedFromOne) {
  LossSeries candidate = read_fixture("megatron_lm_gpt_oss_20b_8xh200.log");
  LossSeries by_iteration = read_fixture("megatron_lm_gpt_oss_20b_reference_arm_by_iteration.csv");
  std::optional<StepOffsetHint> hint = detect_step_offset(candidate, by_iteration);
  ASSERT_TRUE(hint);
  EXPECT_EQ(hint->offset, -1);
  EXPECT_EQ(hint->steps, 20);
  EXPECT_LT(hint->shifted_mean_relative_difference, 0.5 * hint->mean_relative_difference);
  // The same runs aligned, and the reference arm's own log: no hint.
  EXPECT_FALSE(detect_step_offset(candidate, shift_steps(by_iteration, -1)));
  EXPECT_FALSE(
      detect_step_offset(candidate, read_fixture("megatron_lm_gpt_oss_20b_reference_arm.log")));
  // The other way round the candidate is the one counted from 1.
  std::optional<StepOffsetHint> other = detect_step_offset(by_iteration, candidate);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->offset, 1);
}

}  // namespace
}  // namespace openrecipes
