// The protocol and run-term rules on the real recipes: each bundled recipe passes as it is, and
// each rule has an edit of a real recipe that breaks it and one near its edge that it accepts.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;
using testing::has_rule;
using testing::kGptOssRecipe;
using testing::kQwenFlexRecipe;
using testing::kQwenRc2Recipe;
using testing::kQwenRecipe;
using testing::read_source_file;
using testing::replace_all;
using testing::validate_as;

// gpt-oss's command run by Megatron-LM's pretrain_gpt.py instead of slime.
const std::pair<std::string, std::string> kAsMegatronLm = {
    "python3 -m <slime entry module> --async", "torchrun --nproc-per-node 8 pretrain_gpt.py"};

struct TermCase {
  std::string name;
  std::string recipe;
  std::vector<std::pair<std::string, std::string>> edits;
  std::string rule;
  bool must_fail;
};

void PrintTo(const TermCase& c, std::ostream* os) { *os << c.name; }

class TermTest : public ::testing::TestWithParam<TermCase> {};

TEST_P(TermTest, ReportsExactlyWhenBroken) {
  const TermCase& c = GetParam();
  std::string text = read_source_file(c.recipe);
  for (const auto& [from, to] : c.edits) {
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text = replace_all(text, from, to);
  }
  Problems problems = validate_as(c.recipe, text);
  EXPECT_EQ(has_rule(problems, c.rule), c.must_fail) << c.rule << "\n" << describe(problems);
  for (const Problem& problem : problems) {
    EXPECT_GT(problem.position.line, 0) << format_problem_line(problem);
    EXPECT_FALSE(problem.message.empty());
    if (problem.rule == c.rule) {
      EXPECT_FALSE(problem.expected.empty()) << problem.message;
    }
  }
}

const std::vector<TermCase> kTermCases = {
    // run.seq_length (the first example: rows of 8,192 tokens trained at 4,096)
    {"SeqLengthOfHalfTheRowFails",
     kGptOssRecipe,
     {{"--seq-length 8192", "--seq-length 4096"}},
     "run.seq_length",
     true},
    {"SeqLengthOfTheRowPasses", kGptOssRecipe, {}, "run.seq_length", false},
    {"SlimeWithoutSeqLengthPasses", kQwenRecipe, {}, "run.seq_length", false},
    {"SlimeSeqLengthStatedWrongFails",
     kQwenRecipe,
     {{"--global-batch-size 128 \\\n", "--global-batch-size 128 --seq-length 4096 \\\n"}},
     "run.seq_length",
     true},
    {"MegatronLmWithoutSeqLengthFails",
     kGptOssRecipe,
     {kAsMegatronLm, {"--seq-length 8192 \\\n", ""}},
     "run.seq_length",
     true},
    {"MegatronLmWithSeqLengthPasses", kGptOssRecipe, {kAsMegatronLm}, "run.seq_length", false},
    // run.global_batch
    {"GlobalBatchOfHalfFails",
     kGptOssRecipe,
     {{"--global-batch-size 128", "--global-batch-size 64"}},
     "run.global_batch",
     true},
    {"GlobalBatchMissingFails",
     kGptOssRecipe,
     {{"--global-batch-size 128", ""}},
     "run.global_batch",
     true},
    {"GlobalBatchFromStepsPerRolloutPasses",
     kGptOssRecipe,
     {{"--global-batch-size 128", "--num-steps-per-rollout 1"}},
     "run.global_batch",
     false},
    {"GlobalBatchFromTwoStepsPerRolloutFails",
     kGptOssRecipe,
     {{"--global-batch-size 128", "--num-steps-per-rollout 2"}},
     "run.global_batch",
     true},
    // run.precision
    {"Bf16RecipeRunInFp16Fails",
     kGptOssRecipe,
     {{"--seed 5678", "--seed 5678 --fp16"}},
     "run.precision",
     true},
    {"Bf16RecipeRunInFp8Fails",
     kGptOssRecipe,
     {{"--seed 5678", "--seed 5678 --fp8-format hybrid"}},
     "run.precision",
     true},
    {"SlimeBf16WithoutFlagPasses", kGptOssRecipe, {}, "run.precision", false},
    {"MegatronLmWithoutBf16Fails", kGptOssRecipe, {kAsMegatronLm}, "run.precision", true},
    {"MegatronLmWithBf16Passes",
     kGptOssRecipe,
     {kAsMegatronLm, {"--seed 5678", "--seed 5678 --bf16"}},
     "run.precision",
     false},
    {"Fp8RecipeWithoutFp8FormatFails",
     kGptOssRecipe,
     {{"precision: bf16", "precision: fp8"}},
     "run.precision",
     true},
    {"Fp8RecipeWithFp8FormatPasses",
     kGptOssRecipe,
     {{"precision: bf16", "precision: fp8"}, {"--seed 5678", "--seed 5678 --fp8-format hybrid"}},
     "run.precision",
     false},
    {"Bf16RecipeRunInFp4Fails",
     kGptOssRecipe,
     {{"--seed 5678", "--seed 5678 --fp4-format e2m1"}},
     "run.precision",
     true},
    {"Mxfp8RecipeWithPerTensorFp8Fails",
     kGptOssRecipe,
     {{"precision: bf16", "precision: mxfp8"}, {"--seed 5678", "--seed 5678 --fp8-format hybrid"}},
     "run.precision",
     true},
    {"Mxfp8RecipeWithTheMxfp8RecipePasses",
     kGptOssRecipe,
     {{"precision: bf16", "precision: mxfp8"},
      {"--seed 5678", "--seed 5678 --fp8-format e4m3 --fp8-recipe mxfp8"}},
     "run.precision",
     false},
    {"Nvfp4RecipeWithoutFp4FormatFails",
     kGptOssRecipe,
     {{"precision: bf16", "precision: nvfp4"}, {"--seed 5678", "--seed 5678 --fp8-format e4m3"}},
     "run.precision",
     true},
    {"Nvfp4RecipeWithFp4FormatPasses",
     kGptOssRecipe,
     {{"precision: bf16", "precision: nvfp4"}, {"--seed 5678", "--seed 5678 --fp4-format e2m1"}},
     "run.precision",
     false},
    // run.steps
    {"StepsOtherThanStatedFails",
     kQwenRecipe,
     {{"--num-rollout 14", "--num-rollout 20"}},
     "run.steps",
     true},
    {"StepsFromRolloutsOfTwoStepsFails",
     kGptOssRecipe,
     {{"--rollout-batch-size 128", "--rollout-batch-size 256"}},
     "run.steps",
     true},
    {"StepsFromRolloutsOfTwoStepsHalvedPasses",
     kGptOssRecipe,
     {{"--rollout-batch-size 128", "--rollout-batch-size 256"},
      {"--num-rollout 20", "--num-rollout 10"}},
     "run.steps",
     false},
    {"StepsMissingFails", kGptOssRecipe, {{"--num-rollout 20 ", ""}}, "run.steps", true},
    {"MegatronLmWithoutTrainItersFails", kGptOssRecipe, {kAsMegatronLm}, "run.steps", true},
    {"MegatronLmWithTrainItersPasses",
     kGptOssRecipe,
     {kAsMegatronLm, {"--seed 5678", "--seed 5678 --train-iters 20"}},
     "run.steps",
     false},
    // protocol.deviation
    {"FourteenStepRunStatingItsDeviationPasses", kQwenRecipe, {}, "protocol.deviation", false},
    {"FourteenStepRunWithoutDeviationFails",
     kQwenRecipe,
     {{"  protocol_deviation: 14 steps scored over steps 4-13 (10 steps), not the protocol's 20 "
       "steps scored over 5-19\n",
       ""}},
     "protocol.deviation",
     true},
    {"ProtocolRunStatingADeviationFails",
     kQwenRc2Recipe,
     {{"  profiler: false\n", "  profiler: false\n  protocol_deviation: none really\n"}},
     "protocol.deviation",
     true},
    {"Fp8RunWithoutDeviationFails",
     kGptOssRecipe,
     {{"precision: bf16", "precision: fp8"}},
     "protocol.deviation",
     true},
    {"OtherWindowWithoutDeviationFails",
     kQwenRc2Recipe,
     {{"  - 5\n  - 19\n  window_tokens: 15728640", "  - 4\n  - 19\n  window_tokens: 16777216"}},
     "protocol.deviation",
     true},
    // mesh.microbatch (the second example: 4 rows of 8,192 tokens in an 8,192 budget)
    {"FourRowsInOneRowsBudgetFails",
     kGptOssRecipe,
     {{"rows_per_microbatch: 1", "rows_per_microbatch: 4"}},
     "mesh.microbatch",
     true},
    {"TwoRowsInTwoRowsBudgetPasses",
     kGptOssRecipe,
     {{"rows_per_microbatch: 1", "rows_per_microbatch: 2"},
      {"max_tokens_per_gpu: 8192", "max_tokens_per_gpu: 16384"}},
     "mesh.microbatch",
     false},
    // run.microbatch
    {"DynamicBatchingWithTwoRowsInOneRowsBudgetFails",
     kGptOssRecipe,
     {{"rows_per_microbatch: 1", "rows_per_microbatch: 2"}},
     "run.microbatch",
     true},
    {"DynamicBatchingWithTwoRowsBudgetPasses",
     kGptOssRecipe,
     {{"rows_per_microbatch: 1", "rows_per_microbatch: 2"},
      {"max_tokens_per_gpu: 8192", "max_tokens_per_gpu: 16384"},
      {"--max-tokens-per-gpu 8192", "--max-tokens-per-gpu 16384"}},
     "run.microbatch",
     false},
    {"DynamicBatchingWithOtherBudgetFails",
     kQwenRecipe,
     {{"--max-tokens-per-gpu 8192", "--max-tokens-per-gpu 16384"}},
     "run.microbatch",
     true},
    {"DynamicBatchingWithoutBudgetFails",
     kQwenRecipe,
     {{"    --max-tokens-per-gpu 8192 \\\n", ""}},
     "run.microbatch",
     true},
    {"FixedBatchingWithoutMicroBatchSizeFails",
     kGptOssRecipe,
     {{"--use-dynamic-batch-size --max-tokens-per-gpu 8192", ""}},
     "run.microbatch",
     true},
    {"FixedBatchingWithMicroBatchSizePasses",
     kGptOssRecipe,
     {{"--use-dynamic-batch-size --max-tokens-per-gpu 8192", "--micro-batch-size 1"}},
     "run.microbatch",
     false},
    {"FixedBatchingWithOtherMicroBatchSizeFails",
     kGptOssRecipe,
     {{"--use-dynamic-batch-size --max-tokens-per-gpu 8192", "--micro-batch-size 2"}},
     "run.microbatch",
     true},
    // run.model_script
    {"ScriptNamingTheExpandedArrayPasses", kQwenRecipe, {}, "run.model_script", false},
    {"ScriptNamingAnotherArrayFails",
     kQwenRecipe,
     {{"  array: MODEL_ARGS\n", "  array: OTHER_ARGS\n"}},
     "run.model_script",
     true},
    {"InlineModelArgsNeedNoScript", kGptOssRecipe, {}, "run.model_script", false},
    {"ScriptForAnInlineArrayFails",
     kGptOssRecipe,
     {{"run: |\n",
       "model_script:\n  name: a script\n  array: MODEL_ARGS\n  sets:\n    --num-layers: 24\nrun: "
       "|\n"}},
     "run.model_script",
     true},
    // run.model_shape
    {"ScriptSizesOfTheModelPass", kQwenRecipe, {}, "run.model_shape", false},
    {"ScriptLayersOtherThanTheModelsFail",
     kQwenRecipe,
     {{"    --num-layers: 48\n", "    --num-layers: 40\n"}},
     "run.model_shape",
     true},
    {"ScriptTopkOtherThanTheModelsFails",
     kQwenRc2Recipe,
     {{"    --moe-router-topk: 8\n", "    --moe-router-topk: 10\n"}},
     "run.model_shape",
     true},
    {"InlineLayersOtherThanTheModelsFail",
     kGptOssRecipe,
     {{"--num-layers 24", "--num-layers 12"}},
     "run.model_shape",
     true},
    {"InlineQueryGroupsOtherThanTheModelsFail",
     kGptOssRecipe,
     {{"--num-query-groups 8", "--num-query-groups 4"}},
     "run.model_shape",
     true},
    {"CommandFlagAfterTheArrayOverridesTheScript",
     kQwenRecipe,
     {{"    --hf-checkpoint \"$HF_CKPT\" \\\n",
       "    --num-layers 40 \\\n    --hf-checkpoint \"$HF_CKPT\" \\\n"}},
     "run.model_shape",
     true},
    {"CommandFlagBeforeTheArrayLosesToTheScript",
     kQwenRecipe,
     {{"    --actor-num-nodes 4 \\\n", "    --actor-num-nodes 4 --num-layers 40 \\\n"}},
     "run.model_shape",
     false},
    // run.layout: the dispatcher through the model script and slime's default
    {"FlexAfterTheArrayWinsOverTheScripts", kQwenFlexRecipe, {}, "run.layout", false},
    {"FlexLayoutWithTheScriptsAlltoallFails",
     kQwenFlexRecipe,
     {{" \\\n    --moe-token-dispatcher-type flex", ""}},
     "run.layout",
     true},
    {"DispatcherBeforeTheArrayLosesToTheScript",
     kQwenRecipe,
     {{"    --actor-num-nodes 4 \\\n",
       "    --actor-num-nodes 4 --moe-token-dispatcher-type flex \\\n"}},
     "run.layout",
     false},
    {"DispatcherAfterTheArrayWins",
     kQwenRecipe,
     {{"    --hf-checkpoint \"$HF_CKPT\" \\\n",
       "    --moe-token-dispatcher-type flex \\\n    --hf-checkpoint \"$HF_CKPT\" \\\n"}},
     "run.layout",
     true},
    {"SlimeDefaultDispatcherIsAlltoall",
     kQwenRecipe,
     {{"    --moe-token-dispatcher-type: alltoall\n", ""}},
     "run.layout",
     false},
    {"SlimeDefaultDispatcherIsNotFlex",
     kQwenFlexRecipe,
     {{"    --moe-token-dispatcher-type: alltoall\n", ""},
      {" \\\n    --moe-token-dispatcher-type flex", ""}},
     "run.layout",
     true},
    {"MegatronLmDefaultDispatcherIsAllgather",
     kGptOssRecipe,
     {kAsMegatronLm, {"--moe-token-dispatcher-type alltoall", ""}},
     "run.layout",
     true},
    // run.offload
    {"NoOffloadPasses", kGptOssRecipe, {}, "run.offload", false},
    {"OffloadWithoutLayoutOffloadFails",
     kGptOssRecipe,
     {{"--seed 5678", "--seed 5678 --optimizer-cpu-offload"}},
     "run.offload",
     true},
    {"LayoutOffloadWithoutTheFlagFails",
     kGptOssRecipe,
     {{"  offload: null", "  offload: {optimizer_fraction: 0.5, overlap_d2h_h2d: true}"}},
     "run.offload",
     true},
    {"LayoutOffloadWithItsFlagsPasses",
     kGptOssRecipe,
     {{"  offload: null", "  offload: {optimizer_fraction: 0.5, overlap_d2h_h2d: true}"},
      {"--seed 5678",
       "--seed 5678 --optimizer-cpu-offload --optimizer-offload-fraction 0.5 "
       "--overlap-cpu-optimizer-d2h-h2d"}},
     "run.offload",
     false},
};

INSTANTIATE_TEST_SUITE_P(Terms, TermTest, ::testing::ValuesIn(kTermCases),
                         [](const auto& test) { return test.param.name; });

TEST(TermMessages, SeqLengthProblemPointsAtTheFlagWithBothValues) {
  std::string text =
      replace_all(read_source_file(kGptOssRecipe), "--seq-length 8192", "--seq-length 4096");
  Problems problems = validate_as(kGptOssRecipe, text);
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  std::size_t at = text.find("--seq-length 4096");
  EXPECT_EQ(problems[0].rule, "run.seq_length");
  EXPECT_EQ(problems[0].position.line,
            1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')));
  EXPECT_EQ(problems[0].expected, "8192");
  EXPECT_EQ(problems[0].found, "4096");
}

TEST(TermMessages, ScriptProblemPointsAtTheScriptsKey) {
  std::string text = replace_all(read_source_file(kQwenRecipe), "    --num-layers: 48\n",
                                 "    --num-layers: 40\n");
  Problems problems = validate_as(kQwenRecipe, text);
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  std::size_t at = text.find("--num-layers: 40");
  EXPECT_EQ(problems[0].rule, "run.model_shape");
  EXPECT_EQ(problems[0].position.line,
            1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')));
  EXPECT_EQ(problems[0].expected, "48");
  EXPECT_EQ(problems[0].found, "40");
}

TEST(TermMessages, RunExpandingAnArrayWithoutAScriptNamesTheArray) {
  std::string text = read_source_file(kQwenRecipe);
  std::size_t from = text.find("model_script:\n"), to = text.find("run: |\n");
  ASSERT_LT(from, to);
  text.erase(from, to - from);
  Problems problems = validate_as(kQwenRecipe, text);
  ASSERT_TRUE(has_rule(problems, "run.model_script")) << describe(problems);
  for (const Problem& p : problems) {
    if (p.rule != "run.model_script") continue;
    EXPECT_NE(p.message.find("MODEL_ARGS"), std::string::npos) << p.message;
    std::size_t at = text.find("${MODEL_ARGS[@]}");
    EXPECT_EQ(p.position.line,
              1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')));
  }
}

// gpt-oss's recipe with its run replaced by a Megatron-Bridge command of the same layout.
std::string as_bridge_recipe(const std::string& overrides) {
  std::string text = read_source_file(kGptOssRecipe);
  std::size_t from = text.find("run: |\n"), to = text.find("notes: |\n");
  EXPECT_LT(from, to);
  text.replace(
      from, to - from,
      "run: |\n"
      "  torchrun --nproc-per-node 8 scripts/training/run_recipe.py \\\n"
      "    model.tensor_model_parallel_size=1 model.pipeline_model_parallel_size=2 \\\n"
      "    model.expert_model_parallel_size=4 model.moe_token_dispatcher_type=alltoall \\\n"
      "    train.global_batch_size=128 train.micro_batch_size=1 train.train_iters=20 \\\n"
      "    " +
          overrides + "\n");
  return text;
}

TEST(BridgeRun, StatingEveryTermPasses) {
  Problems problems = validate_as(kGptOssRecipe, as_bridge_recipe("model.seq_length=8192"));
  EXPECT_TRUE(problems.empty()) << describe(problems);
}

TEST(BridgeRun, SeqLengthOfHalfTheRowFails) {
  Problems problems = validate_as(kGptOssRecipe, as_bridge_recipe("dataset.seq_length=4096"));
  EXPECT_TRUE(has_rule(problems, "run.seq_length")) << describe(problems);
}

TEST(BridgeRun, WithoutSeqLengthFails) {
  Problems problems = validate_as(kGptOssRecipe, as_bridge_recipe("model.fp16=False"));
  EXPECT_TRUE(has_rule(problems, "run.seq_length")) << describe(problems);
  EXPECT_FALSE(has_rule(problems, "run.precision")) << describe(problems);
}

TEST(BridgeRun, Fp16Fails) {
  Problems problems =
      validate_as(kGptOssRecipe, as_bridge_recipe("model.seq_length=8192 model.fp16=True"));
  EXPECT_TRUE(has_rule(problems, "run.precision")) << describe(problems);
}

TEST(BridgeRun, WithoutDispatcherForAnMoeModelFails) {
  std::string text = replace_all(as_bridge_recipe("model.seq_length=8192"),
                                 "model.moe_token_dispatcher_type=alltoall", "");
  Problems problems = validate_as(kGptOssRecipe, text);
  EXPECT_TRUE(has_rule(problems, "run.layout")) << describe(problems);
}

TEST(BridgeRun, ModelSizeOverrideOtherThanTheModelsFails) {
  Problems problems =
      validate_as(kGptOssRecipe, as_bridge_recipe("model.seq_length=8192 model.num_layers=36"));
  EXPECT_TRUE(has_rule(problems, "run.model_shape")) << describe(problems);
}

}  // namespace
}  // namespace openrecipes
