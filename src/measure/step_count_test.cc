#include "measure/step_count.h"

#include <gtest/gtest.h>

#include "measure/measure_error.h"

namespace openrecipes {
namespace {

TEST(StepCount, ForcesSlimesRolloutCountAndKeepsTheRest) {
  ForcedStepCount forced = force_step_count(
      "python3 -m train --async \\\n  --num-rollout 14 \\\n  --rollout-batch-size 128 "
      "--global-batch-size 128\n",
      20);
  EXPECT_EQ(forced.run,
            "python3 -m train --async \\\n  --num-rollout 20 \\\n  --rollout-batch-size 128 "
            "--global-batch-size 128\n");
  EXPECT_EQ(forced.flag, "--num-rollout");
  EXPECT_EQ(forced.recipe_value, "14");
  EXPECT_EQ(forced.framework, TrainingFramework::kSlime);
}

TEST(StepCount, ForcesMegatronLmAndBridgeSpellings) {
  ForcedStepCount lm =
      force_step_count("torchrun pretrain_gpt.py --train-iters=500 --log-interval 1", 20);
  EXPECT_EQ(lm.run, "torchrun pretrain_gpt.py --train-iters=20 --log-interval 1");
  EXPECT_EQ(lm.framework, TrainingFramework::kMegatronLm);
  ForcedStepCount bridge = force_step_count(
      "python run.py train.train_iters=$STEPS model.tensor_model_parallel_size=2", 20);
  EXPECT_EQ(bridge.run, "python run.py train.train_iters=20 model.tensor_model_parallel_size=2");
  EXPECT_EQ(bridge.recipe_value, "$STEPS");
  EXPECT_EQ(bridge.framework, TrainingFramework::kMegatronBridge);
}

TEST(StepCount, RefusesACommandWithoutAStepCountOrWithTheProfiler) {
  EXPECT_THROW(force_step_count("python3 train.py ${MODEL_ARGS[@]}", 20), MeasureError);
  EXPECT_THROW(force_step_count("python3 train.py --train-iters 20 --profile", 20), MeasureError);
}

TEST(StepCount, ReadsTheCommandAsTheShellDoes) {
  // Hydra's `++` prefix, a variable the text defines, the last occurrence.
  ForcedStepCount bridge = force_step_count("python run.py ++train.train_iters=500", 20);
  EXPECT_EQ(bridge.run, "python run.py ++train.train_iters=20");
  EXPECT_EQ(bridge.flag, "train.train_iters");
  ForcedStepCount variable =
      force_step_count("STEPS=7\npython3 train.py --train-iters 5 --train-iters $STEPS", 20);
  EXPECT_EQ(variable.recipe_value, "7");
  EXPECT_EQ(variable.run, "STEPS=7\npython3 train.py --train-iters 20 --train-iters 20");
  // A flag alone has no count; a helper command's flag is not the training command's.
  EXPECT_THROW(force_step_count("python3 train.py --train-iters", 20), MeasureError);
  try {
    force_step_count("python3 train.py --train-iters 20 \\\n  --profile", 20);
    ADD_FAILURE() << "the profiler must be refused";
  } catch (const MeasureError& error) {
    EXPECT_NE(std::string(error.what()).find("run, line 2: --profile"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace openrecipes
