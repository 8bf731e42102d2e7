#include "catalog/run_command.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

TEST(RunCommand, ReadsFlagsAcrossContinuationsWithTheirLines) {
  RunCommand command = parse_run_command(
      "export A=1 B=\"x y\"\n"
      "\n"
      "# a comment --tensor-model-parallel-size 9\n"
      "python3 -m train --async \\\n"
      "  --tensor-model-parallel-size 2 \\\n"
      "  --sequence-parallel \\\n"
      "  --max-tokens-per-gpu=8192 ${MODEL_ARGS[@]}\n");
  ASSERT_EQ(command.exports.size(), 2u);
  EXPECT_EQ(command.exports[1], (std::pair<std::string, std::string>{"B", "x y"}));
  const RunArgument* tp = command.find("--tensor-model-parallel-size");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value, "2");
  EXPECT_EQ(tp->line, 4);
  const RunArgument* sp = command.find("--sequence-parallel");
  ASSERT_NE(sp, nullptr);
  EXPECT_FALSE(sp->value.has_value());
  EXPECT_EQ(command.find("--max-tokens-per-gpu")->value, "8192");
  ASSERT_NE(command.find("--async"), nullptr);
  EXPECT_FALSE(command.find("--async")->value.has_value());  // the next word is a flag
}

TEST(RunCommand, LastOccurrenceWins) {
  RunCommand command = parse_run_command("run --moe-token-dispatcher-type alltoall "
                                         "--moe-token-dispatcher-type flex\n");
  EXPECT_EQ(command.find("--moe-token-dispatcher-type")->value, "flex");
}

TEST(RunCommand, ReadsMegatronBridgeOverrides) {
  RunCommand command = parse_run_command(
      "python scripts/training/run_recipe.py --recipe x model.tensor_model_parallel_size=4 "
      "train.global_batch_size=128 NCCL_DEBUG=INFO\n");
  const RunArgument* tp = command.find_any({"--tensor-model-parallel-size",
                                            "model.tensor_model_parallel_size"});
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value, "4");
  EXPECT_EQ(command.find("train.global_batch_size")->value, "128");
  EXPECT_EQ(command.find("NCCL_DEBUG"), nullptr);  // an environment assignment, not an override
}

TEST(RunCommand, KeepsSubstitutionsWhole) {
  RunCommand command = parse_run_command(
      "export NCCL_NVLS_ENABLE=$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)\n"
      "run --x \"$(echo a b)\" --y\n");
  ASSERT_EQ(command.exports.size(), 1u);
  EXPECT_EQ(command.exports[0].second, "$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)");
  EXPECT_EQ(command.find("--x")->value, "$(echo a b)");
  EXPECT_EQ(command.find("--x")->line, 1);
}

TEST(RunCommand, ASwitchAtTheEndOfACommandTakesNoValueFromTheNext) {
  RunCommand command = parse_run_command("a --flag\nb --other 1\n");
  EXPECT_FALSE(command.find("--flag")->value.has_value());
}

}  // namespace
}  // namespace openrecipes
