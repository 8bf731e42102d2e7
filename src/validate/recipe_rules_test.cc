// Every cross-field rule, on the real recipes: they pass as bundled, and each rule has at least
// one edit that breaks it and one edit near its edge that it must accept.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::bundled_catalog;
using testing::describe;
using testing::has_rule;
using testing::kBundledRecipes;
using testing::kGptOssRecipe;
using testing::kQwenFlexRecipe;
using testing::kQwenRc2Recipe;
using testing::kQwenRecipe;
using testing::read_source_file;
using testing::replace_all;
using testing::validate_as;

TEST(BundledRecipes, EveryOnePassesWithEveryFigureRecomputed) {
  for (const std::string& path : kBundledRecipes) {
    RecipeReport report =
        validate_recipe_file(bundled_catalog(), testing::source_dir() + "/" + path);
    EXPECT_TRUE(report.problems.empty()) << path << "\n" << describe(report.problems);
    EXPECT_TRUE(report.recipe.has_value()) << path;
  }
}

// One case: a real recipe, some text edits, the path to validate it as, and whether `rule`
// must be reported (a failing case) or must not be (a passing case).
struct RuleCase {
  std::string name;
  std::string recipe;
  std::vector<std::pair<std::string, std::string>> edits;
  std::string rule;
  bool must_fail;
  std::string as_path;  // empty: the recipe's own path
};

void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.name; }

class RuleTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RuleTest, ReportsExactlyWhenBroken) {
  const RuleCase& c = GetParam();
  std::string text = read_source_file(c.recipe);
  for (const auto& [from, to] : c.edits) text = replace_all(text, from, to);
  Problems problems = validate_as(c.as_path.empty() ? c.recipe : c.as_path, text);
  EXPECT_EQ(has_rule(problems, c.rule), c.must_fail) << c.rule << "\n" << describe(problems);
  for (const Problem& problem : problems) {
    EXPECT_GT(problem.position.line, 0) << format_problem_line(problem);
    EXPECT_FALSE(problem.message.empty());
  }
}

// The edits that turn the rc2 recipe's full recompute into selective recompute of `modules` (a
// YAML flow list's items), its run stating `run_modules` (a --recompute-modules line, or none).
std::vector<std::pair<std::string, std::string>> selective_rc2(const std::string& modules,
                                                               const std::string& run_modules) {
  return {{"    granularity: full\n    method: uniform\n    num_layers: 2\n",
           "    granularity: selective\n    method: null\n    num_layers: null\n    modules: [" +
               modules + "]\n"},
          {"--recompute-granularity full \\\n    --recompute-method uniform \\\n"
           "    --recompute-num-layers 2 \\\n",
           "--recompute-granularity selective \\\n" + run_modules}};
}

const std::vector<RuleCase> kRuleCases = {
    // path
    {"PathWithVariantSuffixPasses",
     kGptOssRecipe,
     {},
     "path",
     false,
     "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4-rerun.yaml"},
    {"PathInOtherGpuFolderFails",
     kGptOssRecipe,
     {},
     "path",
     true,
     "recipes/gpt-oss-20b/h100/attune-tp1-pp2-ep4.yaml"},
    {"PathWithOtherLayoutFails",
     kGptOssRecipe,
     {},
     "path",
     true,
     "recipes/gpt-oss-20b/h200/attune-tp1-pp4-ep4.yaml"},
    {"PathWithOtherAuthorFails",
     kGptOssRecipe,
     {},
     "path",
     true,
     "recipes/gpt-oss-20b/h200/jane-tp1-pp2-ep4.yaml"},
    {"PathOutsideCatalogFails", kGptOssRecipe, {}, "path", true, "elsewhere/recipe.yaml"},
    {"GithubHandleNamesTheFile",
     kGptOssRecipe,
     {{"  name: ATTUNE\n  url: https://arxiv.org/abs/2610.17528\n", "  github: Jane-Doe\n"}},
     "path",
     false,
     "recipes/gpt-oss-20b/h200/jane-doe-tp1-pp2-ep4.yaml"},
    {"AnAuthorNameWithoutLettersOrDigitsFails",
     kGptOssRecipe,
     {{"  name: ATTUNE\n", "  name: '!!!'\n"}},
     "path",
     true,
     "recipes/gpt-oss-20b/h200/-tp1-pp2-ep4.yaml"},
    // catalog references
    {"UnknownModelFails",
     kGptOssRecipe,
     {{"model: gpt-oss-20b", "model: gpt-oss-21b"}},
     "catalog.model",
     true,
     ""},
    {"UnknownGpuFails", kGptOssRecipe, {{"type: H200", "type: H300"}}, "catalog.gpu", true, ""},
    {"GpuMemoryMismatchFails",
     kGptOssRecipe,
     {{"memory_gb: 141", "memory_gb: 140"}},
     "catalog.gpu",
     true,
     ""},
    {"ActiveParamsMismatchFails",
     kGptOssRecipe,
     {{"count: 3607142400", "count: 3607142401"}},
     "catalog.active_params",
     true,
     ""},
    {"ActiveParamsRevisionMismatchFails",
     kQwenRecipe,
     {{"revision: dc4d348443bc740c68e2d77492492c11606384d5",
       "revision: 0000348443bc740c68e2d77492492c11606384d5"}},
     "catalog.active_params",
     true,
     ""},
    // gpu.per_node
    {"PerNodeDividingCountPasses",
     kQwenRecipe,
     {{"per_node: 8", "per_node: 4"}},
     "gpu.per_node",
     false,
     ""},
    {"PerNodeNotDividingCountFails",
     kQwenRecipe,
     {{"per_node: 8", "per_node: 6"}},
     "gpu.per_node",
     true,
     ""},
    // layout.dp and mesh.world
    {"WrongDpFails", kGptOssRecipe, {{"  dp: 4", "  dp: 2"}}, "layout.dp", true, ""},
    {"CountNotDivisibleByModelParallelFails",
     kGptOssRecipe,
     {{"count: 8", "count: 7"}},
     "mesh.world",
     true,
     ""},
    {"LargerCountWithMatchingDpPassesWorld",
     kGptOssRecipe,
     {{"count: 8", "count: 16"}, {"  dp: 4", "  dp: 8"}},
     "mesh.world",
     false,
     ""},
    // layout.label
    {"LabelNotMatchingSizesFails",
     kGptOssRecipe,
     {{"label: TP1 PP2 EP4 DP4", "label: TP1 PP2 EP4 DP8"}},
     "layout.label",
     true,
     ""},
    {"LabelMissingEpFails",
     kGptOssRecipe,
     {{"label: TP1 PP2 EP4 DP4", "label: TP1 PP2 DP4"}},
     "layout.label",
     true,
     ""},
    // mesh.ep
    {"EpNotDividingExpertsFails", kGptOssRecipe, {{"  ep: 4", "  ep: 3"}}, "mesh.ep", true, ""},
    {"EpLargerThanExpertRanksFails",
     kGptOssRecipe,
     {{"  ep: 4", "  ep: 8"}},
     "mesh.expert_dp",
     true,
     ""},
    {"EpOneStillDividesPasses", kGptOssRecipe, {{"  ep: 4", "  ep: 1"}}, "mesh.ep", false, ""},
    // mesh.flex_dispatcher: Megatron-Core's flex dispatcher asserts TP x EP > 1
    {"FlexWithTpTimesEpOneFails",
     kGptOssRecipe,
     {{"  ep: 4", "  ep: 1"}, {"  dispatcher: alltoall", "  dispatcher: flex"}},
     "mesh.flex_dispatcher",
     true,
     ""},
    {"FlexWithEpFourPasses",
     kGptOssRecipe,
     {{"  dispatcher: alltoall", "  dispatcher: flex"}},
     "mesh.flex_dispatcher",
     false,
     ""},
    // mesh.pp
    {"PpNotDividingLayersFails", kGptOssRecipe, {{"  pp: 2", "  pp: 5"}}, "mesh.pp", true, ""},
    {"LayerSplitCoveringAllLayersPasses",
     kQwenRc2Recipe,
     {{"layer_split: null", "layer_split: {first: 11, last: 11}"}},
     "mesh.pp",
     false,
     ""},
    {"LayerSplitMissingLayersFails",
     kQwenRc2Recipe,
     {{"layer_split: null", "layer_split: {first: 11, last: 10}"}},
     "mesh.pp",
     true,
     ""},
    {"VppNotDividingStageLayersFails",
     kQwenRc2Recipe,
     {{"  vpp: 1", "  vpp: 5"}},
     "mesh.vpp",
     true,
     ""},
    {"VppDividingStageLayersPasses",
     kQwenRc2Recipe,
     {{"  vpp: 1", "  vpp: 3"}},
     "mesh.vpp",
     false,
     ""},
    // mesh.max_tokens
    {"MaxTokensBelowRowFails",
     kGptOssRecipe,
     {{"max_tokens_per_gpu: 8192", "max_tokens_per_gpu: 4096"}},
     "mesh.max_tokens",
     true,
     ""},
    {"MaxTokensAboveRowPasses",
     kGptOssRecipe,
     {{"max_tokens_per_gpu: 8192", "max_tokens_per_gpu: 16384"}},
     "mesh.max_tokens",
     false,
     ""},
    // mesh.batch
    {"MicrobatchSplittingBatchPasses",
     kGptOssRecipe,
     {{"rows_per_microbatch: 1", "rows_per_microbatch: 2"}},
     "mesh.batch",
     false,
     ""},
    {"MicrobatchNotSplittingBatchFails",
     kGptOssRecipe,
     {{"rows_per_microbatch: 1", "rows_per_microbatch: 3"}},
     "mesh.batch",
     true,
     ""},
    // run.layout
    {"RunWithOtherPpFails",
     kGptOssRecipe,
     {{"--pipeline-model-parallel-size 2", "--pipeline-model-parallel-size 4"}},
     "run.layout",
     true,
     ""},
    {"RunWithoutRecomputeFlagsFails",
     kQwenRc2Recipe,
     {{"--recompute-granularity full \\\n", ""}},
     "run.layout",
     true,
     ""},
    {"RunWithOtherRecomputeLayersFails",
     kQwenRc2Recipe,
     {{"--recompute-num-layers 2", "--recompute-num-layers 1"}},
     "run.layout",
     true,
     ""},
    {"RunRecomputingWhenLayoutDoesNotFails",
     kGptOssRecipe,
     {{"--use-dynamic-batch-size", "--recompute-granularity full --use-dynamic-batch-size"}},
     "run.layout",
     true,
     ""},
    {"RunWithTheLayoutsRecomputeModulesPasses", kQwenRc2Recipe,
     selective_rc2("moe_act, layernorm", "    --recompute-modules layernorm moe_act \\\n"),
     "run.layout", false, ""},
    {"RunWithOtherRecomputeModulesFails", kQwenRc2Recipe,
     selective_rc2("moe_act, layernorm", "    --recompute-modules moe_act \\\n"), "run.layout",
     true, ""},
    {"RunWithoutTheLayoutsRecomputeModulesFails", kQwenRc2Recipe, selective_rc2("moe_act", ""),
     "run.layout", true, ""},
    {"RecomputeModulesWithFullRecomputeFail",
     kQwenRc2Recipe,
     {{"    num_layers: 2\n", "    num_layers: 2\n    modules: [mlp]\n"}},
     "mesh.recompute",
     true,
     ""},
    {"UnknownRecomputeModuleFails",
     kQwenRc2Recipe,
     {{"    num_layers: 2\n", "    num_layers: 2\n    modules: [attention]\n"}},
     "schema",
     true,
     ""},
    {"RunWithOtherDispatcherFails",
     kQwenFlexRecipe,
     {{"--moe-token-dispatcher-type flex", "--moe-token-dispatcher-type alltoall"}},
     "run.layout",
     true,
     ""},
    {"RunWithOtherStepCountFails",
     kQwenRecipe,
     {{"--num-rollout 14", "--num-rollout 20"}},
     "run.steps",
     true,
     ""},
    {"RunWithOtherGlobalBatchFails",
     kGptOssRecipe,
     {{"--global-batch-size 128", "--global-batch-size 64"}},
     "run.global_batch",
     true,
     ""},
    {"RunWithOtherGpuCountFails",
     kGptOssRecipe,
     {{"--actor-num-nodes 1", "--actor-num-nodes 2"}},
     "run.layout",
     true,
     ""},
    {"RunWithOverflowingGpuCountFails",
     kGptOssRecipe,
     {{"--actor-num-nodes 1", "--actor-num-nodes 2305843009213693953"}},
     "run.layout",
     true,
     ""},
    {"RunWithPlusSignedSizePasses",
     kGptOssRecipe,
     {{"--tensor-model-parallel-size 1", "--tensor-model-parallel-size +1"}},
     "run.layout",
     false,
     ""},
    {"RunWithSymbolicSizeFails",
     kGptOssRecipe,
     {{"--tensor-model-parallel-size 1", "--tensor-model-parallel-size $TP"}},
     "run.layout",
     true,
     ""},
    {"SequenceParallelFlagAtTp1Passes",
     kGptOssRecipe,
     {{"--use-dynamic-batch-size", "--sequence-parallel --use-dynamic-batch-size"}},
     "run.layout",
     false,
     ""},
    {"SequenceParallelClaimedAtTp1Fails",
     kGptOssRecipe,
     {{"sequence_parallel: false", "sequence_parallel: true"}},
     "run.layout",
     true,
     ""},
    // figures.cost
    {"CostOffByACentFails",
     kGptOssRecipe,
     {{"usd_per_million_tokens: 0.23", "usd_per_million_tokens: 0.24"}},
     "figures.cost",
     true,
     ""},
    // figures.mfu
    {"MfuOffInFourthDecimalFails",
     kGptOssRecipe,
     {{"mfu: 0.2068", "mfu: 0.2069"}},
     "figures.mfu",
     true,
     ""},
    {"MfuNullWithoutNoteFails",
     kGptOssRecipe,
     {{"mfu: 0.2068", "mfu: null"}},
     "figures.mfu",
     true,
     ""},
    {"MfuNullWithNotePasses",
     kGptOssRecipe,
     {{"mfu: 0.2068", "mfu: null"}, {"mfu_note: null", "mfu_note: N not yet counted"}},
     "figures.mfu",
     false,
     ""},
    // figures.window and window_tokens
    {"WindowPastLastStepFails",
     kGptOssRecipe,
     {{"  - 19\n  window_tokens", "  - 20\n  window_tokens"}},
     "figures.window",
     true,
     ""},
    {"WindowReversedFails",
     kGptOssRecipe,
     {{"  - 5\n  - 19", "  - 19\n  - 5"}},
     "figures.window",
     true,
     ""},
    {"WindowTokensWrongFails",
     kGptOssRecipe,
     {{"window_tokens: 15728640", "window_tokens: 15728641"}},
     "figures.window_tokens",
     true,
     ""},
    {"ShorterWindowWithMatchingTokensPasses",
     kGptOssRecipe,
     {{"  - 5\n  - 19", "  - 5\n  - 18"}, {"window_tokens: 15728640", "window_tokens: 14680064"}},
     "figures.window_tokens",
     false,
     ""},
    // figures.gpu_hours
    {"GpuHoursBelowWindowTimeFails",
     kGptOssRecipe,
     {{"gpu_hours: 1.02", "gpu_hours: 0.3"}},
     "figures.gpu_hours",
     true,
     ""},
    {"GpuHoursJustAboveWindowTimePasses",
     kGptOssRecipe,
     {{"gpu_hours: 1.02", "gpu_hours: 0.47"}},
     "figures.gpu_hours",
     false,
     ""},
    // workload.rows
    {"RowsBuiltForOtherLengthFails",
     kGptOssRecipe,
     {{"      row_tokens: 8192", "      row_tokens: 4096"}},
     "workload.rows",
     true,
     ""},
    // dates
    {"ImpossibleDateFails",
     kGptOssRecipe,
     {{"measured: 2026-10-13", "measured: 2026-02-30"}},
     "dates",
     true,
     ""},
    {"LeapDayPasses",
     kGptOssRecipe,
     {{"measured: 2026-10-13", "measured: 2028-02-29"}},
     "dates",
     false,
     ""},
    // status
    {"PassedConvergenceWithLowCorrelationFails",
     kGptOssRecipe,
     {{"correlation: 0.999999", "correlation: 0.5"}},
     "convergence",
     true,
     ""},
    {"PassedConvergenceWithFinalLossApartFails",
     kGptOssRecipe,
     {{"final_loss_difference: 9.5e-05", "final_loss_difference: 0.4"}},
     "convergence",
     true,
     ""},
    {"VerifiedWithPointwiseFailuresFails",
     kGptOssRecipe,
     {{"pointwise_failures: 0", "pointwise_failures: 1"}},
     "status",
     true,
     ""},
    {"VerifiedWithFailedComponentTestFails",
     kQwenFlexRecipe,
     {{"    result: pass\n    detail", "    result: fail\n    detail"}},
     "status",
     true,
     ""},
    {"UnverifiedWithFailuresPasses",
     kGptOssRecipe,
     {{"status: verified", "status: unverified"},
      {"pointwise_failures: 0", "pointwise_failures: 1"}},
     "status",
     false,
     ""},
    // patches
    {"MissingPatchFails",
     kGptOssRecipe,
     {{"patches/attune_gpt_oss_yarn.py", "patches/missing.py"}},
     "patches",
     true,
     ""},
    {"PatchEscapingFolderFails",
     kGptOssRecipe,
     {{"patches/attune_gpt_oss_yarn.py", "patches/../models.yaml"}},
     "patches",
     true,
     ""},
};

INSTANTIATE_TEST_SUITE_P(Rules, RuleTest, ::testing::ValuesIn(kRuleCases),
                         [](const auto& test) { return test.param.name; });

TEST(RuleMessages, CostProblemNamesFieldLineAndBothValues) {
  std::string text = replace_all(read_source_file(kGptOssRecipe), "usd_per_million_tokens: 0.23",
                                 "usd_per_million_tokens: 0.24");
  Problems problems = validate_as(kGptOssRecipe, text);
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "result.usd_per_million_tokens");
  EXPECT_EQ(problems[0].position.line, 74);
  EXPECT_EQ(problems[0].position.column, 3);
  EXPECT_EQ(problems[0].found, "0.24");
  EXPECT_EQ(problems[0].expected.substr(0, 4), "0.23");
}

TEST(RuleMessages, ARecipeOnAGpuWithoutARateIsToldTheCostCannotBeComputed) {
  std::string text = replace_all(read_source_file(kGptOssRecipe), "type: H200\n  memory_gb: 141",
                                 "type: GB200\n  memory_gb: 186");
  Problems problems = validate_as(kGptOssRecipe, text);
  auto cost = std::find_if(problems.begin(), problems.end(),
                           [](const Problem& p) { return p.rule == "figures.cost"; });
  ASSERT_NE(cost, problems.end()) << describe(problems);
  EXPECT_EQ(cost->field, "gpu.type");
  EXPECT_NE(cost->message.find("no rate"), std::string::npos) << cost->message;
  EXPECT_EQ(std::count_if(problems.begin(), problems.end(),
                          [](const Problem& p) { return p.rule == "figures.cost"; }),
            1);
}

// A model listed only for its published runs (models.yaml without a revision) cannot have a
// recipe verified against it until its revision is added; the message says so.
TEST(RuleMessages, ARecipeForAModelWithoutARevisionIsToldToAddIt) {
  const std::string path = "recipes/gpt-oss-120b/h200/attune-tp1-pp2-ep4.yaml";
  std::string text =
      replace_all(read_source_file(kGptOssRecipe), "model: gpt-oss-20b\n", "model: gpt-oss-120b\n");
  Problems problems = validate_as(path, text);
  auto revision = std::find_if(problems.begin(), problems.end(), [](const Problem& p) {
    return p.field == "result.active_params.revision";
  });
  ASSERT_NE(revision, problems.end()) << describe(problems);
  EXPECT_EQ(revision->rule, "catalog.active_params");
  EXPECT_EQ(revision->expected, "a revision in models.yaml");
  EXPECT_EQ(revision->found, "6cee5e81ee83917806bbde320786a8fb61efebee");
}

TEST(RuleMessages, RunProblemInAFoldedScalarPointsAtTheKey) {
  std::string text = replace_all(read_source_file(kGptOssRecipe), "run: |", "run: >");
  text = replace_all(text, "--pipeline-model-parallel-size 2", "--pipeline-model-parallel-size 4");
  Problems problems = validate_as(kGptOssRecipe, text);
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].position.line, 120) << describe(problems);  // the `run:` key
}

TEST(RuleMessages, RunProblemPointsAtTheFlagsLine) {
  std::string text =
      replace_all(read_source_file(kGptOssRecipe), "--pipeline-model-parallel-size 2",
                  "--pipeline-model-parallel-size 4");
  Problems problems = validate_as(kGptOssRecipe, text);
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  std::size_t at = text.find("--pipeline-model-parallel-size 4");
  int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  EXPECT_EQ(problems[0].position.line, line);
  std::size_t line_start = text.rfind('\n', at) + 1;
  EXPECT_EQ(problems[0].position.column, static_cast<int>(at - line_start) + 1);
  EXPECT_EQ(problems[0].found, "4");
  EXPECT_EQ(problems[0].expected, "2");
}

}  // namespace
}  // namespace openrecipes
