#include "runs/training_log.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

std::string fixture(const std::string& name) {
  return testing::source_dir() + "/tests/fixtures/logs/" + name;
}

// The log read from `path`, failing the test (with the problems) when it does not read.
TrainingLog read_log(const std::string& path) {
  Problems problems;
  std::optional<TrainingLog> log = read_training_log(path, problems);
  EXPECT_TRUE(log) << render_problems(problems, OutputFormat::kText);
  return log.value_or(TrainingLog{});
}

TrainingLog parse_log(std::string_view text, const std::string& path) {
  Problems problems;
  std::optional<TrainingLog> log = parse_training_log(text, path, problems);
  EXPECT_TRUE(log) << render_problems(problems, OutputFormat::kText);
  return log.value_or(TrainingLog{});
}

// The one problem parsing `text` as `path` gives, as its line; "" when it parses.
std::string parse_error(std::string_view text, const std::string& path) {
  Problems problems;
  std::optional<TrainingLog> log = parse_training_log(text, path, problems);
  EXPECT_EQ(log.has_value(), problems.empty());
  return problems.empty() ? "" : format_problem_line(problems.front());
}

TEST(TrainingLog, ReadsMegatronLmIterationLines) {
  TrainingLog log = read_log(fixture("megatron_lm_gpt_oss_20b_8xh200.log"));
  EXPECT_EQ(log.format, LogFormat::kMegatronLm);
  ASSERT_EQ(log.steps.size(), 20u);
  EXPECT_EQ(log.total_steps, 20);
  // `iteration 1/ 20` ends step 0 (Megatron-Bridge's evaluate.py: iteration N announces step N-1).
  EXPECT_EQ(log.steps[0].step, 0);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 41.8724);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 1.392882);
  EXPECT_EQ(log.steps[0].line, 6);
  EXPECT_EQ(*log.steps[0].timestamp_s, *parse_log_timestamp("2026-10-13 09:41:06"));
}

// A log copied through Windows (CR LF line ends) reads as the same steps, figures and memory.
TEST(TrainingLog, CrLfLineEndsReadAsTheSameLog) {
  const std::string path = fixture("megatron_lm_gpt_oss_20b_8xh200.log");
  const std::string text =
      testing::read_source_file("tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log");
  TrainingLog original = parse_log(text, path);
  TrainingLog crlf = parse_log(testing::replace_all(text, "\n", "\r\n"), path);
  ASSERT_EQ(crlf.steps.size(), original.steps.size());
  ASSERT_FALSE(original.steps.empty());
  for (std::size_t i = 0; i < original.steps.size(); ++i) {
    EXPECT_EQ(crlf.steps[i].step, original.steps[i].step);
    EXPECT_EQ(crlf.steps[i].step_time_s, original.steps[i].step_time_s);
    EXPECT_EQ(crlf.steps[i].loss, original.steps[i].loss);
    EXPECT_EQ(crlf.steps[i].line, original.steps[i].line);
  }
  EXPECT_EQ(crlf.total_steps, original.total_steps);
  ASSERT_EQ(crlf.memory.size(), original.memory.size());
  ASSERT_FALSE(original.memory.empty());
  EXPECT_EQ(crlf.memory[0].max_reserved_mib, original.memory[0].max_reserved_mib);
}

TEST(TrainingLog, ReadsMegatronBridgeAndSlime) {
  TrainingLog bridge = read_log(fixture("megatron_bridge_llama3_8b_16xh100.log"));
  EXPECT_EQ(bridge.format, LogFormat::kMegatronBridge);
  EXPECT_EQ(bridge.steps.size(), 20u);
  TrainingLog slime = read_log(fixture("slime_qwen35_122b_flex_32xh200.log"));
  EXPECT_EQ(slime.format, LogFormat::kSlime);
  ASSERT_EQ(slime.steps.size(), 20u);
  EXPECT_DOUBLE_EQ(*slime.steps[0].step_time_s, 97.1142);  // perf/step_time of `perf 0:`
  EXPECT_NEAR(*slime.steps[0].loss, 1.2333816, 1e-6);
  EXPECT_NEAR(*slime.steps[0].timestamp_s - *parse_log_timestamp("2026-10-13 14:13:40"), 0.0, 1e-9);
}

TEST(TrainingLog, SlimePrefersTheWholeStepAndIgnoresOtherRoles) {
  TrainingLog log = parse_log(
      "step 0: {'train/loss': 2.5, 'train/step': 0}\n"
      "critic-step 0: {'train/loss': 9.0}\n"
      "perf 0: {'perf/actor_train_time': 3.0, 'perf/train_time': 3.5}\n",
      "x.log");
  ASSERT_EQ(log.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 2.5);
  EXPECT_DOUBLE_EQ(*log.steps[0].step_time_s, 3.5);
}

TEST(TrainingLog, UnknownFormatsAndConflictingStepsFailClearly) {
  EXPECT_NE(parse_error("epoch 1 loss 2.3\nepoch 2 loss 2.1\n", "other.log")
                .find("other.log: no training step lines found"),
            std::string::npos);
  std::string line =
      " iteration        3/      20 | elapsed time per iteration (ms): 100.0 | lm loss: 2.0 |\n";
  EXPECT_EQ(parse_error(line + line, "twice.log"), "");  // the same line twice: one step
  std::string twice = parse_error(line +
                                      " iteration        3/      20 | elapsed time per iteration "
                                      "(ms): 100.0 | lm loss: 2.5 |\n",
                                  "twice.log");
  EXPECT_NE(twice.find("twice.log:2: step: step 2 appears again"), std::string::npos) << twice;
  Problems problems;
  EXPECT_FALSE(read_training_log(fixture("missing.log"), problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rule, "file");
  EXPECT_EQ(problems[0].message, "no such file");
}

TEST(TrainingLog, NumbersThatDoNotParseAreErrorsNamingTheLineAndField) {
  auto error = [](const std::string& text) { return parse_error(text, "bad.log"); };
  EXPECT_EQ(
      error(" iteration 1/ 2 | elapsed time per iteration (ms): 5.0 | lm loss: 1,031742E+00 |\n"),
      "bad.log:1:67: lm loss: not a number (expected a number, found '1,031742E+00 |')");
  EXPECT_NE(error(" iteration 1/ 2 | elapsed time per iteration (ms): 5.0x | lm loss: 1.0 |\n")
                .find("bad.log:1:52: elapsed time"),
            std::string::npos);
  EXPECT_NE(error(" iteration 99999999999999999999/ 20 | lm loss: 1.0 |\n")
                .find("bad.log:1: iteration: expected at most"),
            std::string::npos);
  EXPECT_NE(error("step 0: {'train/loss': 1.0x}\n").find("bad.log:1:24: train/loss"),
            std::string::npos);
  // slime: one time figure for all steps, never a mix.
  EXPECT_NE(error("step 0: {'train/loss': 1.0}\nstep 1: {'train/loss': 1.0}\n"
                  "perf 0: {'perf/step_time': 2.0}\nperf 1: {'perf/train_time': 2.0}\n")
                .find("do not all print one of"),
            std::string::npos);
}

TEST(TrainingLog, ATruncatedLogIsAProblemNamingTheFileLineAndField) {
  // The log cut off after `lm loss:` on its second line: a problem at that line and field.
  std::string text =
      " iteration 1/ 20 | elapsed time per iteration (ms): 5000.0 | lm loss: 2.0 |\n"
      " iteration 2/ 20 | elapsed time per iteration (ms): 5000.0 | lm loss:";
  Problems problems;
  EXPECT_FALSE(parse_training_log(text, "cut.log", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, "cut.log");
  EXPECT_EQ(problems[0].position.line, 2);
  EXPECT_EQ(problems[0].field, "lm loss");
  EXPECT_EQ(problems[0].rule, "log.number");
  // Cut before its first step line ends: no steps, a problem naming the file.
  problems.clear();
  EXPECT_FALSE(parse_training_log(" iteration 1/", "empty.log", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, "empty.log");
  EXPECT_EQ(problems[0].rule, "log.format");
}

TEST(TrainingLog, NanLossesAreKept) {
  TrainingLog log = parse_log(
      " iteration 1/ 2 | elapsed time per iteration (ms): 5.0 | lm loss: nan |\n", "n.log");
  ASSERT_TRUE(log.steps[0].loss);
  EXPECT_TRUE(std::isnan(*log.steps[0].loss));
}

TEST(TrainingLog, TimestampsAreUtcWithFractions) {
  EXPECT_EQ(*parse_log_timestamp("1970-01-02 00:00:00"), 86400.0);
  EXPECT_DOUBLE_EQ(*parse_log_timestamp("1970-01-01 00:00:01,250"), 1.25);
  EXPECT_FALSE(parse_log_timestamp("2026-13-01 00:00:00"));
  EXPECT_FALSE(parse_log_timestamp("yesterday"));
}

}  // namespace
}  // namespace openrecipes
