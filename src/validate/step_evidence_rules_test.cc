// figures.step_times and correctness.losses on the gpt-oss-20b recipe with the per-step fields
// added from its run's logs (tests/fixtures/logs), as `score` and `converge` print them.
#include <gtest/gtest.h>

#include "base/yaml_scalar.h"
#include "runs/convergence.h"
#include "runs/convergence_block.h"
#include "runs/loss_series.h"
#include "runs/training_log.h"
#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;
using testing::has_rule;
using testing::read_source_file;
using testing::replace_all;
using testing::validate_as;

const std::string kGptOss = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
const std::string kLogs = testing::source_dir() + "/tests/fixtures/logs/";

std::vector<double> step_times() {
  Problems problems;
  auto log = read_training_log(kLogs + "megatron_lm_gpt_oss_20b_8xh200.log", problems);
  EXPECT_TRUE(log) << describe(problems);
  std::vector<double> times;
  for (const StepRecord& step : log->steps) times.push_back(*step.step_time_s);
  return times;
}

std::vector<double> losses(const std::string& file) {
  Problems problems;
  auto series = read_loss_series(kLogs + file, problems);
  EXPECT_TRUE(series) << describe(problems);
  std::vector<double> out;
  for (const auto& [step, loss] : series->loss) out.push_back(loss);
  return out;
}

// The recipe with `result.step_times_s` (after window_tokens) written as `list`.
std::string with_step_times(const std::string& list) {
  return replace_all(read_source_file(kGptOss), "  window_tokens: 15728640\n",
                     "  window_tokens: 15728640\n  step_times_s: " + list + "\n");
}

// The recipe with its `convergence:` block replaced by the one `converge` prints for the two
// series (what a contributor pastes).
std::string with_convergence(const std::vector<double>& candidate,
                             const std::vector<double>& reference) {
  LossSeries c{"candidate", "test", {}, false}, r{"reference", "test", {}, false};
  for (std::size_t step = 0; step < candidate.size(); ++step)
    c.loss[static_cast<std::int64_t>(step)] = candidate[step];
  for (std::size_t step = 0; step < reference.size(); ++step)
    r.loss[static_cast<std::int64_t>(step)] = reference[step];
  std::string block = convergence_block_yaml(compare_convergence(c, r));
  std::string text = read_source_file(kGptOss);
  std::size_t from = text.find("  convergence:\n"), to = text.find("  rules:");
  EXPECT_NE(from, std::string::npos);
  EXPECT_NE(to, std::string::npos);
  return text.substr(0, from) + block + text.substr(to);
}

// The recipe with `losses:` (after pointwise_failures) stating the two lists as given.
std::string with_losses(const std::vector<double>& candidate,
                        const std::vector<double>& reference) {
  return replace_all(read_source_file(kGptOss), "    pointwise_failures: 0\n",
                     "    pointwise_failures: 0\n" + convergence_losses_yaml(candidate, reference));
}

TEST(StepTimesRule, TheRunsOwnStepTimesGiveTheStatedScoreAndCv) {
  std::vector<double> times = step_times();
  ASSERT_EQ(times.size(), 20u);
  Problems problems = validate_as(kGptOss, with_step_times(yaml_number_list(times, 4)));
  EXPECT_TRUE(problems.empty()) << describe(problems);

  // Step 0 is outside the window: slower or faster, the score stands.
  std::vector<double> warmup = times;
  warmup[0] *= 2;
  EXPECT_FALSE(has_rule(validate_as(kGptOss, with_step_times(yaml_number_list(warmup, 4))),
                        "figures.step_times"));
}

TEST(StepTimesRule, AWindowStepOffByOnePercentIsNamedAtTheScoreAndTheCv) {
  std::vector<double> times = step_times();
  times[12] *= 1.01;
  Problems problems = validate_as(kGptOss, with_step_times(yaml_number_list(times, 4)));
  std::vector<std::string> fields;
  for (const Problem& p : problems) {
    if (p.rule == "figures.step_times") fields.push_back(p.field);
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"result.tokens_per_s_per_gpu",
                                              "result.step_time_cv_percent"}))
      << describe(problems);
}

TEST(StepTimesRule, OneTimePerStepOfTheRun) {
  std::vector<double> times = step_times();
  times.pop_back();
  Problems problems = validate_as(kGptOss, with_step_times(yaml_number_list(times, 4)));
  ASSERT_TRUE(has_rule(problems, "figures.step_times")) << describe(problems);
  for (const Problem& p : problems) {
    if (p.rule != "figures.step_times") continue;
    EXPECT_EQ(p.field, "result.step_times_s");
    EXPECT_EQ(p.expected, "20 (steps_per_run)");
    EXPECT_EQ(p.found, "19 times");
    EXPECT_EQ(p.position.line, 88);  // the line after window_tokens
  }
}

TEST(StepTimesRule, TheSchemaRefusesAZeroNegativeInfiniteOrTextualTime) {
  for (const char* bad :
       {"[14.1, 0]", "[14.1, -2]", "[14.1, .inf]", "[14.1, .nan]", "[14.1, fast]", "[]", "14.1"}) {
    Problems problems = validate_as(kGptOss, with_step_times(bad));
    bool schema = false;
    for (const Problem& p : problems) schema |= p.rule.rfind("schema", 0) == 0;
    EXPECT_TRUE(schema) << bad << "\n" << describe(problems);
  }
}

TEST(LossesRule, TheBlockConvergePrintsPassesAndAChangedLossIsNamed) {
  std::vector<double> candidate = losses("megatron_lm_gpt_oss_20b_8xh200.log");
  std::vector<double> reference = losses("megatron_lm_gpt_oss_20b_reference_arm.log");
  ASSERT_EQ(candidate.size(), 20u);
  std::string pasted = with_convergence(candidate, reference);
  ASSERT_NE(pasted.find("    losses:\n      candidate: ["), std::string::npos) << pasted;
  Problems problems = validate_as(kGptOss, pasted);
  EXPECT_TRUE(problems.empty()) << describe(problems);

  // The fixture's arms are not the ones the bundled recipe states: its own block disagrees.
  problems = validate_as(kGptOss, with_losses(candidate, reference));
  std::vector<std::string> fields;
  for (const Problem& p : problems) {
    if (p.rule == "correctness.losses") fields.push_back(p.field);
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"correctness.convergence.correlation",
                                              "correctness.convergence.final_loss_difference"}))
      << describe(problems);

  // A reference that drifts 20% from step 10 on fails the comparison the recipe says passed.
  for (std::size_t step = 10; step < reference.size(); ++step) reference[step] *= 1.2;
  std::size_t at = pasted.find("      reference: [");
  std::size_t end = pasted.find("]", at);
  std::string drifted = pasted.substr(0, at) +
                        "      reference: " + yaml_number_list(reference, 8) +
                        pasted.substr(end + 1);
  problems = validate_as(kGptOss, drifted);
  fields.clear();
  for (const Problem& p : problems) {
    if (p.rule == "correctness.losses") fields.push_back(p.field);
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"correctness.convergence.result",
                                              "correctness.convergence.correlation",
                                              "correctness.convergence.final_loss_difference",
                                              "correctness.convergence.pointwise_failures"}))
      << describe(problems);
}

// Constant losses have no correlation: a stated one cannot be the recomputed one (it passed).
TEST(LossesRule, ConstantLossesHaveNoCorrelationToState) {
  std::vector<double> flat(20, 1.0);
  Problems problems = validate_as(kGptOss, with_losses(flat, flat));
  const Problem* correlation = nullptr;
  for (const Problem& p : problems) {
    if (p.rule == "correctness.losses" && p.field == "correctness.convergence.correlation")
      correlation = &p;
  }
  ASSERT_NE(correlation, nullptr) << describe(problems);
  EXPECT_EQ(correlation->expected, "null: a constant loss series has no correlation");
  EXPECT_EQ(correlation->found, "0.999999");  // the recipe's

  // Stated as `converge` writes it (correlation null, result fail), the comparison agrees; the
  // schema takes null, and a passed convergence may not state it.
  std::string as_converge_writes =
      replace_all(replace_all(with_losses(flat, flat), "    correlation: 0.999999\n",
                              "    correlation: null\n"),
                  "    steps: 20\n    result: pass\n", "    steps: 20\n    result: fail\n");
  problems = validate_as(kGptOss, as_converge_writes);
  for (const Problem& p : problems) {
    if (p.rule == "correctness.losses") {
      // (the recipe's final loss difference is its own runs', not the flat series')
      EXPECT_NE(p.field, "correctness.convergence.correlation") << describe(problems);
      EXPECT_NE(p.field, "correctness.convergence.result") << describe(problems);
    }
    EXPECT_NE(p.rule, "schema") << describe(problems);
  }
  problems =
      validate_as(kGptOss, replace_all(read_source_file(kGptOss), "    correlation: 0.999999\n",
                                       "    correlation: null\n"));
  const Problem* passed = nullptr;
  for (const Problem& p : problems) {
    if (p.rule == "convergence" && p.field == "correctness.convergence.correlation") passed = &p;
    EXPECT_NE(p.rule, "schema") << describe(problems);
  }
  ASSERT_NE(passed, nullptr) << describe(problems);
  EXPECT_EQ(passed->found, "null (no correlation)");
}

TEST(LossesRule, EachArmHoldsOneLossPerComparedStep) {
  std::vector<double> candidate = losses("megatron_lm_gpt_oss_20b_8xh200.log");
  std::vector<double> reference = losses("megatron_lm_gpt_oss_20b_reference_arm.log");
  reference.resize(18);
  Problems problems = validate_as(kGptOss, with_losses(candidate, reference));
  ASSERT_TRUE(has_rule(problems, "correctness.losses")) << describe(problems);
  for (const Problem& p : problems) {
    if (p.rule != "correctness.losses") continue;
    EXPECT_EQ(p.field, "correctness.convergence.losses.reference");
    EXPECT_EQ(p.expected, "20 (convergence.steps)");
    EXPECT_EQ(p.found, "18 losses");
  }
  // Only one arm: the schema asks for both.
  std::string one_arm = replace_all(read_source_file(kGptOss), "    pointwise_failures: 0\n",
                                    "    pointwise_failures: 0\n    losses:\n      candidate: "
                                    "[1.3, 1.2]\n");
  Problems schema = validate_as(kGptOss, one_arm);
  EXPECT_FALSE(schema.empty());
  EXPECT_FALSE(has_rule(schema, "correctness.losses")) << describe(schema);
}

}  // namespace
}  // namespace openrecipes
