#include "runs/loss_series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

std::string write(const std::string& name, const std::string& text) {
  std::string path = testing::fresh_dir("loss_series_" + name) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The series at `path`, failing the test (with the problems) when it does not read.
LossSeries read_series(const std::string& path) {
  Problems problems;
  std::optional<LossSeries> series = read_loss_series(path, problems);
  EXPECT_TRUE(series) << render_problems(problems, OutputFormat::kText);
  return series.value_or(LossSeries{});
}

TEST(LossSeries, ReadsGoldenValuesCsvListsAndLogs) {
  // Megatron-Bridge's golden values: steps as keys, scalar memory figures beside them.
  LossSeries golden = read_series(write(
      "golden.json",
      R"({"0": {"lm loss": 2.5, "iteration-time": 1.2}, "1": {"lm loss": NaN}, "alloc": 12.5})"));
  EXPECT_EQ(golden.source, "golden values JSON");
  ASSERT_EQ(golden.loss.size(), 2u);
  EXPECT_DOUBLE_EQ(golden.loss.at(0), 2.5);
  EXPECT_TRUE(std::isnan(golden.loss.at(1)));
  LossSeries csv = read_series(write("curve.csv", "step,loss\n0,2.5\n1, 2.25\n\n2,2.0\r\n"));
  EXPECT_EQ(csv.loss.size(), 3u);
  EXPECT_DOUBLE_EQ(csv.loss.at(1), 2.25);
  EXPECT_EQ(read_series(write("list.json", "[3.0, 2.0, 1.5]")).loss.at(2), 1.5);
  EXPECT_EQ(read_series(write("object.json", R"({"0": 3.0, "5": 2.0})")).loss.at(5), 2.0);
  LossSeries log = read_series(testing::source_dir() +
                               "/tests/fixtures/logs/slime_qwen35_122b_flex_32xh200.log");
  EXPECT_EQ(log.source, "slime log");
  EXPECT_EQ(log.loss.size(), 20u);
}

TEST(LossSeries, ReadsMegatronLmGoldenValuesByIterationAndAsAList) {
  // tests/functional_tests/test_cases/**/golden_values*.json: keyed by iteration (from 1).
  LossSeries golden = read_series(testing::source_dir() +
                                  "/tests/fixtures/logs/"
                                  "megatron_lm_gpt_oss_20b_reference_arm_golden_values.json");
  EXPECT_TRUE(golden.sampled);
  EXPECT_EQ(golden.source, "Megatron-LM golden values JSON (iteration N read as step N-1)");
  ASSERT_EQ(golden.loss.size(), 5u);
  EXPECT_DOUBLE_EQ(golden.loss.at(0), 1.39326);  // iteration 1
  EXPECT_DOUBLE_EQ(golden.loss.at(4), 1.15102);  // iteration 5
  EXPECT_DOUBLE_EQ(golden.loss.at(19), 0.94773);
  // The older list form: value i at step start_step + i x step_interval; "nan" where missing.
  LossSeries list = read_series(write(
      "list_golden.json",
      R"({"lm loss": {"start_step": 0, "end_step": 10, "step_interval": 5, "values": [3.0, "nan", 2.0]}})"));
  EXPECT_DOUBLE_EQ(list.loss.at(10), 2.0);
  EXPECT_TRUE(std::isnan(list.loss.at(5)));
  LossSeries every = read_series(write(
      "every.json",
      R"({"lm loss": {"start_step": 1, "end_step": 2, "step_interval": 1, "values": {"1": 3.0, "2": 2.0}}})"));
  EXPECT_FALSE(every.sampled);
  // A W&B export of the same reference arm, Megatron's `lm loss` by iteration.
  LossSeries wandb = read_series(testing::source_dir() +
                                 "/tests/fixtures/logs/wandb_gpt_oss_20b_reference_arm.csv");
  ASSERT_EQ(wandb.loss.size(), 20u);
  EXPECT_DOUBLE_EQ(wandb.loss.at(0), 1.393256);
}

TEST(LossSeries, BadGoldenValuesAreClearProblems) {
  auto error = [](const std::string& name, const std::string& text) -> std::string {
    Problems problems;
    std::optional<LossSeries> series = read_loss_series(write(name, text), problems);
    EXPECT_EQ(series.has_value(), problems.empty());
    return problems.empty() ? ""
                            : problems.front().field + ": " + problems.front().message + " [" +
                                  problems.front().rule + "]";
  };
  EXPECT_EQ(
      error("negative.json",
            R"({"lm loss": {"start_step": 1, "end_step": 50, "step_interval": -5, "values": {}}})"),
      "\"lm loss\".step_interval: expected a positive integer, found -5 [loss.golden]");
  EXPECT_EQ(
      error(
          "float.json",
          R"({"lm loss": {"start_step": 1.5, "end_step": 50, "step_interval": 5, "values": {}}})"),
      "\"lm loss\".start_step: expected an integer, found 1.5 [loss.golden]");
  EXPECT_EQ(
      error(
          "outside.json",
          R"({"lm loss": {"start_step": 1, "end_step": 5, "step_interval": 5, "values": {"10": 1.0}}})"),
      "\"lm loss\".values.\"10\": iteration 10 is outside start_step 1 to end_step 5 "
      "(iterations count from 1) [loss.golden]");
  EXPECT_EQ(
      error(
          "past.json",
          R"({"lm loss": {"start_step": 0, "end_step": 5, "step_interval": 5, "values": [1, 2, 3]}})"),
      "\"lm loss\".values.[2]: step 10 is past end_step 5 [loss.golden]");
  EXPECT_EQ(
      error("noloss.json",
            R"({"num-zeros": {"start_step": 1, "end_step": 5, "step_interval": 5, "values": {}}})"),
      ": no \"lm loss\" metric (found num-zeros) [loss.golden]");
  EXPECT_EQ(
      error(
          "text.json",
          R"({"lm loss": {"start_step": 1, "end_step": 5, "step_interval": 5, "values": {"1": "low"}}})"),
      "\"lm loss\".values.\"1\": expected a number, found \"low\" [loss.value]");
  EXPECT_EQ(
      error("novalues.json",
            R"({"lm loss": {"start_step": 1, "end_step": 5, "step_interval": 5, "values": 3}})"),
      "\"lm loss\".values: expected the values as an object keyed by iteration or a list "
      "[loss.golden]");
  EXPECT_EQ(error("wandb.csv", "Step,\"run - train/grad_norm\"\n0,1.0\n").substr(0, 18),
            ": no loss column (");
}

TEST(LossSeries, BadFilesNameTheLineOrKey) {
  auto error = [](const std::string& path) -> std::string {
    Problems problems;
    std::optional<LossSeries> series = read_loss_series(path, problems);
    EXPECT_EQ(series.has_value(), problems.empty());
    return problems.empty() ? "" : format_problem_line(problems.front());
  };
  std::string csv = write("bad.csv", "step,loss\n0,2.5\n1,abc\n");
  EXPECT_EQ(error(csv), csv + ":3: loss 'abc': expected a number");
  // A CSV whose second column is not a loss, or that has more than two columns, is refused
  // rather than read as losses.
  std::string accuracy = write("accuracy.csv", "step,accuracy\n0,0.5\n1,0.6\n");
  EXPECT_EQ(error(accuracy),
            accuracy +
                ":1: the second column is `accuracy`, not a loss (expected a header "
                "`step,loss`)");
  std::string three = write("three.csv", "step,grad_norm,lr\n0,0.5,1e-5\n");
  EXPECT_NE(error(three).find("expected two columns, `step,loss`"), std::string::npos);
  EXPECT_EQ(read_series(write("lm.csv", "step,lm loss\n0,2.5\n")).loss.size(), 1u);
  std::string twice = write("twice.csv", "0,2.5\n0,2.4\n");
  EXPECT_NE(error(twice).find("step 0 given twice"), std::string::npos);
  std::string negative = write("negative.csv", "-1,2.5\n");
  EXPECT_NE(error(negative).find("step '-1': expected a 0-based integer"), std::string::npos);
  // A step past any run's length is refused, not clamped to 2^63 - 1 (which reported billions of
  // missing steps).
  std::string far = write("far.csv", "step,loss\n99999999999999999999,1.0\n");
  EXPECT_EQ(error(far), far +
                            ":2: step '99999999999999999999': expected a 0-based integer from 0 to "
                            "100000000");
  std::string far_key = write("far.json", R"({"1": 1.3, "100000001": 1.39})");
  EXPECT_NE(error(far_key).find("expected a 0-based integer from 0 to 100000000"),
            std::string::npos)
      << error(far_key);
  std::string text = write("text.json", "{\"0\": \"high\"}");
  EXPECT_NE(error(text).find("expected a number, found \"high\""), std::string::npos);
  std::string broken = write("broken.json", "{");
  EXPECT_NE(error(broken).find("not valid JSON"), std::string::npos);
  // A number beyond a double's range is out_of_range to nlohmann, not a parse_error: it was an
  // "internal error" until the sanitizer build's fuzzing (fuzz/) found it in config.json.
  std::string huge = write("huge.json", R"({"0": 1e999})");
  EXPECT_NE(error(huge).find(huge + ":1: 0: number out of range"), std::string::npos)
      << error(huge);
  std::string golden = write("golden.json", R"({"0": {"iteration-time": 1.0}})");
  EXPECT_NE(error(golden).find("no \"lm loss\""), std::string::npos);
  EXPECT_NE(error(write("notes.txt", "hello\n")).find("no training step lines found"),
            std::string::npos);
}

TEST(LossSeries, ABadSeriesIsAProblemWithItsFileLineAndField) {
  Problems problems;
  std::string csv = write("cut.csv", "step,loss\n0,2.5\n1,\n");
  EXPECT_FALSE(read_loss_series(csv, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, csv);
  EXPECT_EQ(problems[0].position.line, 3);
  EXPECT_EQ(problems[0].rule, "loss.value");
  problems.clear();
  std::string json = write("key.json", R"({"0": {"lm loss": 2.5}, "1": {"lm loss": "high"}})");
  EXPECT_FALSE(read_loss_series(json, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, json);
  EXPECT_EQ(problems[0].field, "\"1\".\"lm loss\"");
  problems.clear();
  // A log step without a loss names the log's line.
  std::string log =
      write("noloss.log", " iteration 1/ 2 | elapsed time per iteration (ms): 5.0 |\n");
  EXPECT_FALSE(read_loss_series(log, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].position.line, 1);
  EXPECT_NE(problems[0].message.find("step 0 has no loss"), std::string::npos);
}

}  // namespace
}  // namespace openrecipes
