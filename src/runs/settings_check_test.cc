#include "runs/settings_check.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;

TrainingLog read_log_fixture(const std::string& name) {
  Problems problems;
  std::optional<TrainingLog> log =
      read_training_log(testing::source_dir() + "/tests/fixtures/logs/" + name, problems);
  EXPECT_TRUE(log) << render_problems(problems, OutputFormat::kText);
  return log.value_or(TrainingLog{});
}

const TermCheck& term(const SettingsCheck& check, const std::string& name) {
  for (const TermCheck& t : check.terms) {
    if (t.term == name) return t;
  }
  ADD_FAILURE() << name;
  return check.terms.front();
}

TEST(SettingsCheck, TheGptOssRecipesSettingsAgreeWithItsLog) {
  TrainingLog log = read_log_fixture("megatron_lm_gpt_oss_20b_8xh200_args.log");
  StatedSettings stated{{{8, "recipe"}},   {{128, "recipe"}}, {{1, "recipe"}}, {{8192, "recipe"}},
                        {{2880, "model"}}, {{24, "model"}},   {{32, "model"}}};
  SettingsCheck check = check_log_settings(log, stated);
  EXPECT_TRUE(check.problems.empty()) << describe(check.problems);
  ASSERT_EQ(check.terms.size(), 7u);
  for (const TermCheck& t : check.terms) EXPECT_EQ(t.status, TermStatus::kAgrees) << t.term;
}

TEST(SettingsCheck, EachDisagreementNamesBothValuesAndTheLogLine) {
  TrainingLog log = read_log_fixture("megatron_lm_gpt_oss_20b_8xh200_args.log");
  StatedSettings stated;
  stated.world_size = StatedValue{32, "--gpus"};
  stated.global_batch = StatedValue{64, "--global-batch"};
  SettingsCheck check = check_log_settings(log, stated);
  ASSERT_EQ(check.problems.size(), 2u) << describe(check.problems);
  const Problem& world = check.problems[0];
  EXPECT_EQ(world.rule, "score.world_size");
  EXPECT_EQ(world.position.line, 1);
  EXPECT_EQ(world.expected, "32");
  EXPECT_EQ(world.found, "8");
  EXPECT_NE(world.message.find("the log says world size (GPUs) 8 (line 1: `using world size: 8, "),
            std::string::npos)
      << world.message;
  EXPECT_NE(world.message.find("but --gpus says 32"), std::string::npos);
  EXPECT_EQ(check.problems[1].rule, "score.global_batch");
  EXPECT_EQ(check.problems[1].found, "128");
  EXPECT_EQ(term(check, "micro_batch_size").status, TermStatus::kNotStated);
}

TEST(SettingsCheck, SaysWhatTheLogDoesNotPrintAndWhatSlimeDoesNotMean) {
  StatedSettings flags;
  flags.world_size = StatedValue{16, "--gpus"};
  flags.global_batch = StatedValue{128, "the protocol's default"};
  SettingsCheck bridge =
      check_log_settings(read_log_fixture("megatron_bridge_llama3_8b_16xh100.log"), flags);
  EXPECT_TRUE(bridge.problems.empty());
  EXPECT_EQ(term(bridge, "world_size").status, TermStatus::kNotPrinted);
  EXPECT_EQ(term(bridge, "global_batch_size").status, TermStatus::kAgrees);
  StatedSettings qwen{{{32, "recipe"}},  {{128, "recipe"}}, {{1, "recipe"}}, {{8192, "recipe"}},
                      {{3072, "model"}}, {{48, "model"}},   {{256, "model"}}};
  SettingsCheck slime =
      check_log_settings(read_log_fixture("slime_qwen35_122b_flex_32xh200_args.log"), qwen);
  EXPECT_TRUE(slime.problems.empty()) << describe(slime.problems);
  EXPECT_EQ(term(slime, "seq_length").status, TermStatus::kNotChecked);
  EXPECT_NE(term(slime, "seq_length").note.find("placeholder"), std::string::npos);
  EXPECT_EQ(term(slime, "num_experts").status, TermStatus::kAgrees);
}

}  // namespace
}  // namespace openrecipes
