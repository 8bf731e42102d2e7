#include "runs/wandb_csv.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

// The one problem reading `text` gives, as its line; "" when it reads.
std::string error(const std::string& text) {
  Problems problems;
  std::optional<LossSeries> series = read_wandb_csv("w.csv", text, problems);
  EXPECT_EQ(series.has_value(), problems.empty());
  return problems.empty() ? "" : format_problem_line(problems.front());
}

TEST(WandbCsv, ReadsAPanelExportOfOneRunsLoss) {
  Problems problems;
  std::optional<LossSeries> slime = read_wandb_csv(
      "w.csv",
      "Step,\"brisk-pond-1 - train/loss\",\"brisk-pond-1 - train/loss__MIN\","
      "\"brisk-pond-1 - train/loss__MAX\"\n0,1.6425,1.6425,1.6425\n1,1.6584,1.6584,1.6584\n"
      "2,,,\n3,1.5,1.5,1.5\r\n",
      problems);
  ASSERT_TRUE(slime) << testing::describe(problems);
  EXPECT_EQ(slime->loss.size(), 3u);  // the empty cell is skipped
  EXPECT_DOUBLE_EQ(slime->loss.at(0), 1.6425);
  EXPECT_EQ(slime->source, "W&B CSV, `brisk-pond-1 - train/loss` by `Step`");
  // Megatron-LM logs `lm loss` at step = iteration: read as 0-based step - 1.
  std::optional<LossSeries> megatron =
      read_wandb_csv("w.csv", "\"Step\",\"run, one - lm loss\"\n1,2.5\n2,2.25\n", problems);
  ASSERT_TRUE(megatron);
  EXPECT_DOUBLE_EQ(megatron->loss.at(0), 2.5);
  EXPECT_DOUBLE_EQ(megatron->loss.at(1), 2.25);
  EXPECT_TRUE(is_wandb_csv_header("Step,\"a - lm loss\""));
  EXPECT_TRUE(is_wandb_csv_header("Step,x__MIN"));
  EXPECT_FALSE(is_wandb_csv_header("step,loss"));
}

TEST(WandbCsv, BadExportsAreClearProblems) {
  EXPECT_EQ(error("Step,\"run - train/grad_norm\",\"run - train/grad_norm__MIN\"\n0,1.0,1.0\n"),
            "w.csv:1: no loss column (expected `<run> - <metric>` with a metric ending in "
            "`loss`, e.g. `lm loss` or `train/loss`; found run - train/grad_norm, run - "
            "train/grad_norm__MIN)");
  EXPECT_NE(error("Step,\"a - lm loss\",\"b - lm loss\"\n")
                .find("2 loss columns (a - lm loss, "
                      "b - lm loss)"),
            std::string::npos);
  EXPECT_EQ(error("Step,\"a - train/loss\"\n0,1.0\n1,low\n"),
            "w.csv:3: a - train/loss: loss 'low': expected a number");
  EXPECT_EQ(error("Step,\"a - train/loss\"\n0.5,1.0\n"),
            "w.csv:2: Step: step '0.5': expected an integer of 0 or more");
  EXPECT_NE(error("Step,\"a - lm loss\"\n0,1.0\n").find("expected an integer of 1 or more"),
            std::string::npos);
  EXPECT_NE(error("Step,\"a - train/loss\n").find("a quote is not closed"), std::string::npos);
  EXPECT_NE(error("Step,\"a - train/loss\",x\n0\n").find("1 cells, expected at least 2"),
            std::string::npos);
  EXPECT_NE(error("Step,\"a - train/loss\"\n0,1\n0,2\n").find("step 0 given twice"),
            std::string::npos);
}

}  // namespace
}  // namespace openrecipes
