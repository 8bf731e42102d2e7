#include "measure/step_count.h"

#include <gtest/gtest.h>

#include <string>

namespace openrecipes {
namespace {

// force_step_count on a command it must accept.
ForcedStepCount forced_or_fail(std::string_view run, int steps) {
  Problems problems;
  std::optional<ForcedStepCount> forced = force_step_count(run, steps, problems);
  EXPECT_TRUE(forced) << render_problems(problems, OutputFormat::kText);
  EXPECT_TRUE(problems.empty());
  return forced.value_or(ForcedStepCount{});
}

// The one problem force_step_count reports for a command it must refuse.
Problem refusal(std::string_view run) {
  Problems problems;
  EXPECT_FALSE(force_step_count(run, 20, problems)) << run;
  EXPECT_EQ(problems.size(), 1u) << run;
  return problems.empty() ? Problem{} : problems.front();
}

TEST(StepCount, ForcesSlimesRolloutCountAndKeepsTheRest) {
  ForcedStepCount forced = forced_or_fail(
      "python3 -m train --async \\\n  --num-rollout 14 \\\n  --rollout-batch-size 128 "
      "--global-batch-size 128\n",
      20);
  EXPECT_EQ(forced.run,
            "python3 -m train --async \\\n  --num-rollout 20 \\\n  --rollout-batch-size 128 "
            "--global-batch-size 128\n");
  EXPECT_EQ(forced.flag, "--num-rollout");
  EXPECT_EQ(forced.recipe_value, "14");
  EXPECT_EQ(forced.framework, RunFramework::kSlime);
}

TEST(StepCount, ForcesMegatronLmAndBridgeSpellings) {
  ForcedStepCount lm =
      forced_or_fail("torchrun pretrain_gpt.py --train-iters=500 --log-interval 1", 20);
  EXPECT_EQ(lm.run, "torchrun pretrain_gpt.py --train-iters=20 --log-interval 1");
  EXPECT_EQ(lm.framework, RunFramework::kMegatronLm);
  ForcedStepCount bridge = forced_or_fail(
      "python run.py train.train_iters=$STEPS model.tensor_model_parallel_size=2", 20);
  EXPECT_EQ(bridge.run, "python run.py train.train_iters=20 model.tensor_model_parallel_size=2");
  EXPECT_EQ(bridge.recipe_value, "$STEPS");
  EXPECT_EQ(bridge.framework, RunFramework::kBridge);
}

TEST(StepCount, RefusesACommandWithoutAStepCountOrWithTheProfiler) {
  Problem none = refusal("python3 train.py ${MODEL_ARGS[@]}");
  EXPECT_EQ(none.field, "run");
  EXPECT_EQ(none.rule, "measure.step_count");
  EXPECT_NE(none.message.find("no step count to set to the protocol's 20"), std::string::npos);
  Problem profiler = refusal("python3 train.py --train-iters 20 --profile");
  EXPECT_NE(profiler.message.find("--profile turns the profiler on"), std::string::npos);
}

TEST(StepCount, ReadsTheCommandAsTheShellDoes) {
  // Hydra's `++` prefix, a variable the text defines, the last occurrence.
  ForcedStepCount bridge = forced_or_fail("python run.py ++train.train_iters=500", 20);
  EXPECT_EQ(bridge.run, "python run.py ++train.train_iters=20");
  EXPECT_EQ(bridge.flag, "train.train_iters");
  ForcedStepCount variable =
      forced_or_fail("STEPS=7\npython3 train.py --train-iters 5 --train-iters $STEPS", 20);
  EXPECT_EQ(variable.recipe_value, "7");
  EXPECT_EQ(variable.run, "STEPS=7\npython3 train.py --train-iters 20 --train-iters 20");
  // A flag alone has no count; a helper command's flag is not the training command's.
  refusal("python3 train.py --train-iters");
  Problem second_line = refusal("python3 train.py --train-iters 20 \\\n  --profile");
  EXPECT_EQ(second_line.position.line, 2);
  EXPECT_NE(second_line.message.find("line 2: --profile"), std::string::npos)
      << second_line.message;
}

}  // namespace
}  // namespace openrecipes
