#include "runs/run_score.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_support.h"

namespace openrecipes {
namespace {

TrainingLog parsed(std::string_view text, const std::string& path) {
  Problems problems;
  std::optional<TrainingLog> log = parse_training_log(text, path, problems);
  EXPECT_TRUE(log) << render_problems(problems, OutputFormat::kText);
  return log.value_or(TrainingLog{});
}

// A Megatron-LM log of `times` (seconds per step), one line per step, a second apart plus the step.
TrainingLog log_of(const std::vector<double>& times) {
  std::string text;
  for (std::size_t i = 0; i < times.size(); ++i) {
    text += " iteration " + std::to_string(i + 1) + "/ " + std::to_string(times.size()) +
            " | elapsed time per iteration (ms): " + std::to_string(times[i] * 1000) +
            " | lm loss: 1.0 |\n";
  }
  return parsed(text, "times.log");
}

// The score of `log` under `setup`, failing the test (with the problems) when there is none.
RunScore scored(const TrainingLog& log, const ScoreSetup& setup) {
  Problems problems;
  std::optional<RunScore> score = score_run(log, setup, problems);
  EXPECT_TRUE(score) << render_problems(problems, OutputFormat::kText);
  return score.value_or(RunScore{});
}

// The problems scoring `log` under `setup` gives (none when it scores).
Problems score_problems(const TrainingLog& log, const ScoreSetup& setup) {
  Problems problems;
  std::optional<RunScore> score = score_run(log, setup, problems);
  EXPECT_EQ(score.has_value(), problems.empty());
  return problems;
}

TEST(RunScore, IsWindowTokensOverWindowSecondsTimesGpus) {
  std::vector<double> times(20, 10.0);
  times[0] = 50;  // the warm-up steps are not scored
  times[7] = 12.0;
  RunScore score = scored(log_of(times), {8, 128, 8192, 5, 19});
  EXPECT_EQ(score.window_tokens, 15728640);
  EXPECT_DOUBLE_EQ(score.window_seconds, 152.0);
  EXPECT_DOUBLE_EQ(score.tokens_per_s_per_gpu, 15728640.0 / (152.0 * 8));
  // Sample standard deviation of fourteen 10s and one 12 around their mean, over the mean.
  double mean = 152.0 / 15;
  double sd = std::sqrt((14 * (10 - mean) * (10 - mean) + (12 - mean) * (12 - mean)) / 14);
  EXPECT_NEAR(score.step_time_cv_percent, 100 * sd / mean, 1e-9);
  EXPECT_FALSE(score.log_gpu_hours);  // no timestamps
}

TEST(RunScore, TheBundledGptOssLogGivesItsRecipesScore) {
  Problems problems;
  std::optional<TrainingLog> log = read_training_log(
      testing::source_dir() + "/tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log", problems);
  ASSERT_TRUE(log);
  RunScore score = scored(*log, {8, 128, 8192, 5, 19});
  EXPECT_NEAR(score.tokens_per_s_per_gpu, 9448.16, 0.005);
  EXPECT_NEAR(score.step_time_cv_percent, 3.99, 0.005);
  ASSERT_TRUE(score.log_gpu_hours);
  // 8 GPUs from the first step's start (its line minus its time) to the last line.
  EXPECT_NEAR(*score.log_gpu_hours,
              8 *
                  (*parse_log_timestamp("2026-10-13 09:45:31") -
                   (*parse_log_timestamp("2026-10-13 09:41:06") - 41.8724)) /
                  3600,
              1e-9);
}

TEST(RunScore, MissingOrUntimedWindowStepsAreErrors) {
  std::vector<double> short_run(15, 10.0);
  Problems missing = score_problems(log_of(short_run), {8, 128, 8192, 5, 19});
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].file, "times.log");
  EXPECT_NE(missing[0].message.find("window steps missing from the log: 15, 16, 17, 18, 19"),
            std::string::npos)
      << missing[0].message;
  std::vector<double> zero(20, 10.0);
  zero[9] = 0;
  EXPECT_FALSE(score_problems(log_of(zero), {8, 128, 8192, 5, 19}).empty());
  EXPECT_FALSE(score_problems(log_of(std::vector<double>(20, 1.0)), {0, 128, 8192, 5, 19}).empty());
  EXPECT_FALSE(score_problems(log_of(std::vector<double>(20, 1.0)), {8, 128, 8192, 9, 5}).empty());
  EXPECT_FALSE(
      score_problems(log_of(std::vector<double>(20, 1.0)), {8, 128, 8192, 5, 5}).empty());  // no CV
  // Window tokens that would overflow, and a step of more than a day, are refused.
  EXPECT_FALSE(
      score_problems(log_of(std::vector<double>(20, 1.0)), {8, 1 << 30, 1 << 30, 5, 19}).empty());
  std::vector<double> day(20, 10.0);
  day[6] = 1e9;
  EXPECT_FALSE(score_problems(log_of(day), {8, 128, 8192, 5, 19}).empty());
}

TEST(RunScore, GpuHoursAreNeverBelowTheWindowsOwnGpuTime) {
  // Every line stamped with the same second: the timestamps say 0 h; the window took 15 x 10 s.
  std::string text;
  for (int i = 1; i <= 20; ++i) {
    text += " [2026-10-13 09:00:00] iteration " + std::to_string(i) +
            "/ 20 | elapsed time per iteration (ms): 10000.0 |"
            " lm loss: 1.0 |\n";
  }
  RunScore score = scored(parsed(text, "same.log"), {8, 128, 8192, 5, 19});
  ASSERT_TRUE(score.log_gpu_hours);
  EXPECT_TRUE(score.gpu_hours_floored);
  EXPECT_DOUBLE_EQ(*score.log_gpu_hours, 8 * 150.0 / 3600);
}

}  // namespace
}  // namespace openrecipes
