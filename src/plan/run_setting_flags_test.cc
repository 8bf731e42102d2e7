// The run-setting table (run_setting_flags.h): each switch reads and writes its own field, the
// flags come out in one order with the backend only where asked, the flags given add to a
// workload without clearing it, and a recipe's command read back gives the same settings.
#include "plan/run_setting_flags.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "plan/catalog_measurements.h"
#include "test_support.h"

namespace openrecipes {
namespace {

TEST(RunSwitches, EachSwitchSetsOnlyItsOwnSetting) {
  const PlanWorkload defaults;
  ASSERT_EQ(run_switches().size(), 4u);
  for (const RunSwitch& s : run_switches()) {
    EXPECT_FALSE(s.on(defaults)) << s.flag << ": off in Megatron-LM by default";
    PlanWorkload workload;
    s.set(workload, true);
    EXPECT_TRUE(s.on(workload)) << s.flag;
    for (const RunSwitch& other : run_switches()) {
      if (other.flag == s.flag) continue;
      EXPECT_FALSE(other.on(workload)) << s.flag << " set " << other.flag;
    }
    EXPECT_EQ(run_setting_flags(workload, true), std::vector<std::string>{s.flag});
    s.set(workload, false);
    EXPECT_FALSE(s.on(workload)) << s.flag;
  }
  PlanWorkload bf16;
  run_switches().back().set(bf16, true);
  EXPECT_FALSE(bf16.grad_reduce_in_fp32) << "--grad-reduce-in-bf16 is FP32 gradients switched off";
}

// Every switch is a flag rules/arguments.yaml knows, so classify and the Bridge draft read it.
TEST(RunSwitches, EveryFlagIsAKnownSpelling) {
  for (const RunSwitch& s : run_switches())
    EXPECT_NE(testing::bundled_argument_rules().find_spelling(s.flag).rule, nullptr) << s.flag;
}

TEST(RunSettingFlags, ComeInOneOrderWithTheBackendOnlyWhereAsked) {
  PlanWorkload workload;
  EXPECT_TRUE(run_setting_flags(workload, true).empty());
  for (const RunSwitch& s : run_switches()) s.set(workload, true);
  workload.hybridep = true;
  const std::vector<std::string> all = {
      "--tp-comm-overlap", "--moe-shared-expert-overlap", "--overlap-moe-expert-parallel-comm",
      "--grad-reduce-in-bf16", "--moe-flex-dispatcher-backend hybridep"};
  EXPECT_EQ(run_setting_flags(workload, true), all);
  EXPECT_EQ(run_setting_flags(workload, false),
            std::vector<std::string>(all.begin(), all.end() - 1));
  workload.hybridep = false;  // DeepEP, the default, is never written
  EXPECT_EQ(run_setting_flags(workload, true).size(), 4u);
}

TEST(AddGivenRunSettings, AddsToTheWorkloadWithoutClearingIt) {
  PlanWorkload workload;
  workload.shared_expert_overlap = true;  // a settings recipe's
  workload.hybridep = true;
  RunSettingArguments given;
  given.tp_comm_overlap = true;
  add_given_run_settings(given, workload);
  EXPECT_TRUE(workload.tp_comm_overlap);
  EXPECT_TRUE(workload.shared_expert_overlap);
  EXPECT_TRUE(workload.hybridep) << "no backend given keeps the recipe's";
  EXPECT_TRUE(workload.grad_reduce_in_fp32);
  given.flex_backend = "deepep";
  given.grad_reduce_in_bf16 = true;
  add_given_run_settings(given, workload);
  EXPECT_FALSE(workload.hybridep);
  EXPECT_FALSE(workload.grad_reduce_in_fp32);
}

// A command holding the flags run_setting_flags writes reads back (apply_recipe_run_settings) as
// the same settings: what export prints is what the planner assumed.
TEST(RunSettingFlags, ReadBackFromACommandAsTheSameSettings) {
  PlanWorkload written;
  written.tp_comm_overlap = true;
  written.ep_a2a_overlap = true;
  written.hybridep = true;
  written.grad_reduce_in_fp32 = false;
  std::string command = "torchrun pretrain_gpt.py --moe-token-dispatcher-type flex";
  for (const std::string& flag : run_setting_flags(written, true)) command += " " + flag;
  PlanWorkload read;
  read.shared_expert_overlap = true;  // not in the command: read back as off
  apply_recipe_run_settings(command, read);
  EXPECT_EQ(run_setting_flags(read, true), run_setting_flags(written, true)) << command;
}

// A switch written with a false value, in any of the spellings the command reader takes for one
// (Megatron-Bridge's `False`, Hydra's `false`, `0`), is read as off; the bare flag and `True` as
// on. Export (export_draft) reads a recipe's switches with the same predicate.
TEST(RunSettingFlags, AFalseValueInAnySpellingSwitchesTheSettingOff) {
  for (const char* off : {"false", "False", "FALSE", "0", "no"}) {
    EXPECT_FALSE(switch_value_on(off)) << off;
    PlanWorkload read;
    apply_recipe_run_settings(fmt::format("torchrun pretrain_gpt.py --tp-comm-overlap {}", off),
                              read);
    EXPECT_FALSE(read.tp_comm_overlap) << off;
  }
  for (const char* on : {"", "true", "True", "1"}) EXPECT_TRUE(switch_value_on(on)) << on;
  PlanWorkload bare;
  apply_recipe_run_settings("torchrun pretrain_gpt.py --tp-comm-overlap", bare);
  EXPECT_TRUE(bare.tp_comm_overlap);
}

}  // namespace
}  // namespace openrecipes
