// The charts' models from a real log's step times and losses: what the picture and its data
// table show, and that the geometry stays inside the chart.
#include "site/chart_model.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "runs/loss_series.h"
#include "runs/training_log.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const std::string kLogs = testing::source_dir() + "/tests/fixtures/logs/";

// The gpt-oss-20b log's result as `score` states it: every step's time, window [5, 19].
RecipeResult gpt_oss_result() {
  Problems problems;
  auto log = read_training_log(kLogs + "megatron_lm_gpt_oss_20b_8xh200.log", problems);
  EXPECT_TRUE(log) << testing::describe(problems);
  RecipeResult r;
  for (const StepRecord& step : log->steps) r.step_times_s.push_back(*step.step_time_s);
  r.steps_per_run = static_cast<int>(r.step_times_s.size());
  r.window_first = 5;
  r.window_last = 19;
  return r;
}

std::vector<double> losses(const std::string& file) {
  Problems problems;
  auto series = read_loss_series(kLogs + file, problems);
  EXPECT_TRUE(series) << testing::describe(problems);
  std::vector<double> out;
  for (const auto& [step, loss] : series->loss) out.push_back(loss);
  return out;
}

std::vector<std::pair<double, double>> points(const std::string& list) {
  std::vector<std::pair<double, double>> out;
  const char* at = list.c_str();
  while (*at) {
    char* end = nullptr;
    double x = std::strtod(at, &end);
    double y = std::strtod(end + 1, &end);  // past the comma
    out.emplace_back(x, y);
    at = *end ? end + 1 : end;
  }
  return out;
}

double number(const nlohmann::json& value) { return std::stod(value.get<std::string>()); }

TEST(StepTimeChart, DrawsEveryStepWithTheWindowShadedAndTabulatesTheTimes) {
  RecipeResult r = gpt_oss_result();
  ASSERT_EQ(r.step_times_s.size(), 20u);
  nlohmann::json chart = step_time_chart(r, "step-time-chart");
  ASSERT_TRUE(chart.is_object());
  EXPECT_EQ(chart["id"], "step-time-chart");
  // The table holds each step's time as stated, and marks the window's 15.
  ASSERT_EQ(chart["table"]["rows"].size(), 20u);
  int scored = 0;
  for (std::size_t step = 0; step < 20; ++step) {
    const auto& cells = chart["table"]["rows"][step]["cells"];
    EXPECT_EQ(cells[0], std::to_string(step));
    EXPECT_DOUBLE_EQ(std::stod(cells[1].get<std::string>()), r.step_times_s[step]);
    scored += cells[2] == "yes";
    EXPECT_EQ(cells[2] == "yes", step >= 5) << step;
  }
  EXPECT_EQ(scored, 15);
  // One point per step, left to right, all inside the plot; the slowest (step 0, 41.9 s) highest.
  auto line = points(chart["series"][0]["points"]);
  ASSERT_EQ(line.size(), 20u);
  double left = number(chart["axis_left"]), right = number(chart["axis_right"]);
  double top = number(chart["axis_top"]), bottom = number(chart["axis_bottom"]);
  EXPECT_NEAR(line.front().first, left, 0.05);
  EXPECT_NEAR(line.back().first, right, 0.05);
  for (std::size_t i = 0; i < line.size(); ++i) {
    EXPECT_GE(line[i].second, top - 0.05);
    EXPECT_LE(line[i].second, bottom + 0.05);
    if (i > 0) {
      EXPECT_GT(line[i].first, line[i - 1].first);
      EXPECT_LT(line[0].second, line[i].second);  // smaller y is higher
    }
  }
  // The band starts half a step before step 5 and runs to the plot's right edge (step 19 is last).
  double step_width = (right - left) / 19;
  EXPECT_NEAR(number(chart["band"]["x"]), left + 4.5 * step_width, 0.1);
  EXPECT_NEAR(number(chart["band"]["x"]) + number(chart["band"]["width"]), right, 0.1);
  // The y axis runs from 0 to a round figure above the slowest step.
  EXPECT_EQ(chart["y_ticks"].front()["label"], "0");
  EXPECT_EQ(chart["y_ticks"].back()["label"], "50");
  EXPECT_NE(chart["description"].get<std::string>().find("steps 5 to 19"), std::string::npos);
}

TEST(StepTimeChart, IsNullWithoutStepTimes) {
  EXPECT_TRUE(step_time_chart(RecipeResult{}, "x").is_null());
}

TEST(LossChart, DrawsBothArmsAndShadesTheScoredSteps) {
  Convergence c;
  c.candidate_losses = losses("megatron_lm_gpt_oss_20b_8xh200.log");
  c.reference_losses = losses("megatron_lm_gpt_oss_20b_reference_arm.log");
  ASSERT_EQ(c.candidate_losses.size(), 20u);
  ASSERT_EQ(c.reference_losses.size(), 20u);
  nlohmann::json chart = loss_chart(c, "loss-chart");
  ASSERT_TRUE(chart.is_object());
  ASSERT_EQ(chart["series"].size(), 2u);
  EXPECT_EQ(chart["series"][1]["class"], "series-b");
  EXPECT_EQ(points(chart["series"][0]["points"]).size(), 20u);
  EXPECT_EQ(points(chart["series"][1]["points"]).size(), 20u);
  // Megatron-Bridge skips int(20 x 0.2) = 4 leading steps.
  EXPECT_EQ(chart["band"]["label"], "scored steps 4–19");
  const auto& last = chart["table"]["rows"][19]["cells"];
  EXPECT_DOUBLE_EQ(std::stod(last[1].get<std::string>()), c.candidate_losses.back());
  EXPECT_DOUBLE_EQ(std::stod(last[2].get<std::string>()), c.reference_losses.back());
  // The y axis covers both series.
  double low = std::stod(chart["y_ticks"].front()["label"].get<std::string>());
  double high = std::stod(chart["y_ticks"].back()["label"].get<std::string>());
  for (double loss : c.candidate_losses) {
    EXPECT_GE(loss, low);
    EXPECT_LE(loss, high);
  }
  ASSERT_EQ(chart["legend"].size(), 2u);

  c.reference_losses.pop_back();  // arms of different lengths draw nothing
  EXPECT_TRUE(loss_chart(c, "loss-chart").is_null());
}

TEST(BarChart, ScalesEveryBarToTheLargestAndKeepsTheOrder) {
  std::vector<Bar> bars = {{"#1 a", "2,451.4", 2451.4, "a.html"},
                           {"#2 b", "1,225.7", 1225.7, "b.html"},
                           {"#3 c", "0.0", 0, "c.html"}};
  nlohmann::json chart = bar_chart(bars, "tokens-chart", "Tokens/s per GPU", "d", "Tokens/s");
  ASSERT_EQ(chart["bars"].size(), 3u);
  double first = number(chart["bars"][0]["width"]);
  EXPECT_NEAR(number(chart["bars"][1]["width"]), first / 2, 0.1);
  EXPECT_EQ(number(chart["bars"][2]["width"]), 1.0);  // a zero still shows a hairline
  EXPECT_LE(number(chart["bars"][0]["text_x"]) + 80,
            number(chart["width"]));  // room for the figure
  EXPECT_LT(number(chart["bars"][0]["y"]), number(chart["bars"][1]["y"]));
  EXPECT_EQ(chart["table"]["rows"][1]["text"], "1,225.7");
  EXPECT_EQ(chart["table"]["rows"][1]["href"], "b.html");
  EXPECT_TRUE(bar_chart({}, "x", "t", "d", "c").is_null());
}

}  // namespace
}  // namespace openrecipes
