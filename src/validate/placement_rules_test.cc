// The layout's placement fields (pipeline_layout, the account-for switches, layer_split) as the
// schema and the parser read them, and the run.placement rule on the real recipes: each term has
// an edit of a real recipe that agrees with its command and edits that break it.
#include <gtest/gtest.h>

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

// Qwen3.5-122B-A10B's 48 layers on PP 4: the even split written as a layout string, and PP 4
// VPP 2 (eight chunks of six layers, the embedding on the first, the loss on the last).
const std::string kEven = "Et*12|t*12|t*12|t*12L";
const std::string kVpp2 = "Et*6|(t*6|)*6t*6L";

using Edit = std::pair<std::string, std::string>;

// The layout block gains `fields` (YAML lines, two-space indented) after layer_split.
Edit layout_fields(const std::string& fields) {
  return {"  layer_split: null\n", "  layer_split: null\n" + fields};
}
// The command gains `arguments` after --pipeline-model-parallel-size.
Edit command_arguments(const std::string& arguments) {
  return {"    --pipeline-model-parallel-size 4 \\\n",
          "    --pipeline-model-parallel-size 4 \\\n    " + arguments + " \\\n"};
}
Edit layout_string(const std::string& layout) {
  return layout_fields("  pipeline_layout: '" + layout + "'\n");
}
Edit command_layout_string(const std::string& layout) {
  return command_arguments("--pipeline-model-parallel-layout '" + layout + "'");
}
const Edit kVpp2Layout = {"  vpp: 1\n", "  vpp: 2\n"};
const Edit kSplit11 = {"  layer_split: null\n", "  layer_split: {first: 11, last: 11}\n"};

struct PlacementCase {
  std::string name;
  std::string recipe;
  std::vector<Edit> edits;
  std::string rule;
  bool must_fail;
};

void PrintTo(const PlacementCase& c, std::ostream* os) { *os << c.name; }

class PlacementTest : public ::testing::TestWithParam<PlacementCase> {};

TEST_P(PlacementTest, ReportsExactlyWhenBroken) {
  const PlacementCase& c = GetParam();
  std::string text = read_source_file(c.recipe);
  for (const auto& [from, to] : c.edits) {
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text = replace_all(text, from, to);
  }
  Problems problems = validate_as(c.recipe, text);
  EXPECT_FALSE(has_rule(problems, "schema")) << describe(problems);
  EXPECT_EQ(has_rule(problems, c.rule), c.must_fail) << c.rule << "\n" << describe(problems);
  for (const Problem& problem : problems) {
    EXPECT_GT(problem.position.line, 0) << format_problem_line(problem);
    if (problem.rule == c.rule) {
      EXPECT_FALSE(problem.expected.empty()) << problem.message;
      EXPECT_FALSE(problem.found.empty()) << problem.message;
    }
  }
}

const std::vector<PlacementCase> kCases = {
    {"BundledRecipePasses", kQwenRc2Recipe, {}, "run.placement", false},
    // --pipeline-model-parallel-layout
    {"LayoutStringInRecipeAndCommandPasses",
     kQwenRc2Recipe,
     {layout_string(kEven), command_layout_string(kEven)},
     "run.placement",
     false},
    // The same placement spelled otherwise: groups, counts and commas are spelling.
    {"LayoutStringSpelledOtherwiseInCommandPasses",
     kQwenRc2Recipe,
     {layout_string(kEven), command_layout_string("E,t*12|(t*12|)*2,t*6t*6,L")},
     "run.placement",
     false},
    {"LayoutStringOnlyInRecipeFails",
     kQwenRc2Recipe,
     {layout_string(kEven)},
     "run.placement",
     true},
    {"LayoutStringOnlyInCommandFails",
     kQwenRc2Recipe,
     {command_layout_string(kEven)},
     "run.placement",
     true},
    {"LayoutStringDifferentInCommandFails",
     kQwenRc2Recipe,
     {layout_string(kEven), command_layout_string("Et*11|t*13|t*12|t*12L")},
     "run.placement",
     true},
    {"LayoutStringFromTheModelScriptPasses",
     kQwenRc2Recipe,
     {layout_string(kEven),
      {"    --moe-aux-loss-coeff: 0\n",
       "    --moe-aux-loss-coeff: 0\n    --pipeline-model-parallel-layout: '" + kEven + "'\n"}},
     "run.placement",
     false},
    // VPP from the layout string's chunks
    {"VppFromTheLayoutStringIsNotAskedOfTheCommand",
     kQwenRc2Recipe,
     {kVpp2Layout, layout_string(kVpp2), command_layout_string(kVpp2)},
     "run.layout",
     false},
    {"VppFromTheLayoutStringPasses",
     kQwenRc2Recipe,
     {kVpp2Layout, layout_string(kVpp2), command_layout_string(kVpp2)},
     "run.placement",
     false},
    {"VppFlagBesideTheLayoutStringFails",
     kQwenRc2Recipe,
     {kVpp2Layout, layout_string(kVpp2),
      command_arguments("--pipeline-model-parallel-layout '" + kVpp2 +
                        "' --num-virtual-stages-per-pipeline-rank 2")},
     "run.placement",
     true},
    {"VppWithoutTheLayoutStringStillNeedsItsFlag",
     kQwenRc2Recipe,
     {kVpp2Layout},
     "run.layout",
     true},
    // --overlap-moe-expert-parallel-comm (rule mesh.ep_a2a_overlap, checked with the run's
    // layout terms): the recipe's full recompute rules the overlap out.
    {"EpAllToAllOverlapWithFullRecomputeFails",
     kQwenRc2Recipe,
     {command_arguments("--overlap-moe-expert-parallel-comm")},
     "mesh.ep_a2a_overlap",
     true},
    {"WithoutTheEpAllToAllOverlapItsRuleIsSilent",
     kQwenRc2Recipe,
     {},
     "mesh.ep_a2a_overlap",
     false},
    // --tp-comm-overlap (rule mesh.tp_comm_overlap): the recipe's TP 1 leaves no sequence
    // parallelism for the overlap, and Megatron-LM would not start.
    {"TpCommOverlapAtTpOneFails",
     kQwenRc2Recipe,
     {command_arguments("--tp-comm-overlap")},
     "mesh.tp_comm_overlap",
     true},
    {"WithoutTheTpCommOverlapItsRuleIsSilent", kQwenRc2Recipe, {}, "mesh.tp_comm_overlap", false},
    // --moe-shared-expert-overlap (rule mesh.shared_expert_overlap): Qwen3.5 has a shared expert,
    // so Megatron-Core accepts the overlap with the alltoall dispatcher only, and never beside
    // the EP all-to-all overlap.
    {"SharedExpertOverlapWithAlltoallPasses", kQwenRecipe, {}, "mesh.shared_expert_overlap", false},
    {"SharedExpertOverlapWithTheFlexDispatcherFails",
     kQwenFlexRecipe,
     {command_arguments("--moe-shared-expert-overlap")},
     "mesh.shared_expert_overlap",
     true},
    {"SharedExpertOverlapBesideTheEpAllToAllOverlapFails",
     kQwenRc2Recipe,
     {command_arguments("--moe-shared-expert-overlap --overlap-moe-expert-parallel-comm")},
     "mesh.shared_expert_overlap",
     true},
    // --account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split
    {"AccountForEmbeddingInBothPasses",
     kQwenRc2Recipe,
     {layout_fields("  account_for_embedding_in_pipeline_split: true\n"),
      command_arguments("--account-for-embedding-in-pipeline-split")},
     "run.placement",
     false},
    {"AccountForEmbeddingFalseWithoutTheFlagPasses",
     kQwenRc2Recipe,
     {layout_fields("  account_for_embedding_in_pipeline_split: false\n")},
     "run.placement",
     false},
    {"AccountForEmbeddingOnlyInRecipeFails",
     kQwenRc2Recipe,
     {layout_fields("  account_for_embedding_in_pipeline_split: true\n")},
     "run.placement",
     true},
    {"AccountForEmbeddingOnlyInCommandFails",
     kQwenRc2Recipe,
     {command_arguments("--account-for-embedding-in-pipeline-split")},
     "run.placement",
     true},
    {"AccountForLossInBothPasses",
     kQwenRc2Recipe,
     {layout_fields("  account_for_loss_in_pipeline_split: true\n"),
      command_arguments("--account-for-loss-in-pipeline-split")},
     "run.placement",
     false},
    {"AccountForLossOnlyInCommandFails",
     kQwenRc2Recipe,
     {command_arguments("--account-for-loss-in-pipeline-split")},
     "run.placement",
     true},
    // --decoder-first-pipeline-num-layers, --decoder-last-pipeline-num-layers
    {"LayerSplitInBothPasses",
     kQwenRc2Recipe,
     {kSplit11, command_arguments("--decoder-first-pipeline-num-layers 11 "
                                  "--decoder-last-pipeline-num-layers 11")},
     "run.placement",
     false},
    {"LayerSplitOnlyInRecipeFails", kQwenRc2Recipe, {kSplit11}, "run.placement", true},
    {"LayerSplitOnlyInCommandFails",
     kQwenRc2Recipe,
     {command_arguments("--decoder-first-pipeline-num-layers 11 "
                        "--decoder-last-pipeline-num-layers 11")},
     "run.placement",
     true},
    {"LayerSplitLastDifferentInCommandFails",
     kQwenRc2Recipe,
     {kSplit11, command_arguments("--decoder-first-pipeline-num-layers 11 "
                                  "--decoder-last-pipeline-num-layers 13")},
     "run.placement",
     true},
    {"LayerSplitNotALiteralNumberFails",
     kQwenRc2Recipe,
     {kSplit11, command_arguments("--decoder-first-pipeline-num-layers $FIRST "
                                  "--decoder-last-pipeline-num-layers 11")},
     "run.placement",
     true},
    // A Megatron-LM command (gpt-oss's run by pretrain_gpt.py) reads the same flags.
    {"MegatronLmLayoutStringOnlyInCommandFails",
     kGptOssRecipe,
     {{"python3 -m <slime entry module> --async", "torchrun --nproc-per-node 8 pretrain_gpt.py"},
      {"--pipeline-model-parallel-size 2 \\\n",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout 'Et*12|t*12L' \\\n"}},
     "run.placement",
     true},
};

INSTANTIATE_TEST_SUITE_P(RunPlacement, PlacementTest, ::testing::ValuesIn(kCases),
                         [](const auto& param_info) { return param_info.param.name; });

// A run rule's problem names the recipe field it is about before its message (field `run`), and
// nothing for a rule about the command alone: the two overlaps that exclude each other read
// "run: the shared-expert overlap ...", not "run: run: ...".
TEST(RunRuleProblems, NameTheLayoutFieldOnlyWhenTheRuleIsAboutOne) {
  auto shared_expert_problem = [](const std::string& recipe, const std::string& arguments) {
    std::string text = read_source_file(recipe);
    text =
        replace_all(text, command_arguments(arguments).first, command_arguments(arguments).second);
    for (const Problem& problem : validate_as(recipe, text))
      if (problem.rule == "mesh.shared_expert_overlap") return problem;
    return Problem{};
  };
  Problem both = shared_expert_problem(
      kQwenRc2Recipe, "--moe-shared-expert-overlap --overlap-moe-expert-parallel-comm");
  EXPECT_EQ(both.field, "run");
  EXPECT_EQ(both.message.rfind("the shared-expert overlap", 0), 0u) << both.message;
  EXPECT_EQ(format_problem_line(both).find("run: run:"), std::string::npos)
      << format_problem_line(both);
  Problem flex = shared_expert_problem(kQwenFlexRecipe, "--moe-shared-expert-overlap");
  EXPECT_EQ(flex.field, "run");
  EXPECT_EQ(flex.message.rfind("layout.dispatcher: ", 0), 0u) << flex.message;
}

// gpt-oss's recipe (24 layers, PP 2) with its run replaced by a Megatron-Bridge command of the
// same layout plus `overrides`, and its layout block gaining `fields`.
std::string as_bridge_recipe_with_fields(const std::string& overrides,
                                         const std::string& fields = "") {
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
      "    model.seq_length=8192 " +
          overrides + "\n");
  auto [layout_from, layout_to] = layout_fields(fields);
  return replace_all(text, layout_from, layout_to);
}

struct BridgeCase {
  std::string name;
  std::string overrides;
  std::string fields;
  bool must_fail;
  int vpp = 1;  // layout.vpp
};

void PrintTo(const BridgeCase& c, std::ostream* os) { *os << c.name; }

class BridgePlacementTest : public ::testing::TestWithParam<BridgeCase> {};

TEST_P(BridgePlacementTest, ReportsExactlyWhenBroken) {
  const BridgeCase& c = GetParam();
  std::string text = replace_all(as_bridge_recipe_with_fields(c.overrides, c.fields), "  vpp: 1\n",
                                 "  vpp: " + std::to_string(c.vpp) + "\n");
  Problems problems = validate_as(kGptOssRecipe, text);
  EXPECT_EQ(has_rule(problems, "run.placement"), c.must_fail) << describe(problems);
  EXPECT_FALSE(has_rule(problems, "run.layout")) << describe(problems);
  EXPECT_FALSE(has_rule(problems, "schema")) << describe(problems);
}

const std::vector<BridgeCase> kBridgeCases = {
    {"NothingStatedPasses", "", "", false},
    {"NullsPass",
     "model.pipeline_model_parallel_layout=null model.num_layers_in_first_pipeline_stage=None "
     "model.account_for_loss_in_pipeline_split=False",
     "", false},
    {"HydraQuotedLayoutStringPasses", "'model.pipeline_model_parallel_layout=\"Et*12|t*12L\"'",
     "  pipeline_layout: 'Et*12|t*12L'\n", false},
    {"LayoutStringWithItsVppPasses",
     "'model.pipeline_model_parallel_layout=\"Et*6|t*6|t*6|t*6L\"' "
     "model.virtual_pipeline_model_parallel_size=2",
     "  pipeline_layout: 'Et*6|t*6|t*6|t*6L'\n", false, 2},
    {"LayoutStringOnlyInRecipeFails", "", "  pipeline_layout: 'Et*12|t*12L'\n", true},
    {"AccountForLossTruePasses", "model.account_for_loss_in_pipeline_split=true",
     "  account_for_loss_in_pipeline_split: true\n", false},
    {"AccountForLossOnlyInCommandFails", "model.account_for_loss_in_pipeline_split=True", "", true},
    {"FirstStageLayersOnlyInCommandFails", "model.num_layers_in_first_pipeline_stage=11", "", true},
};

INSTANTIATE_TEST_SUITE_P(BridgeRunPlacement, BridgePlacementTest, ::testing::ValuesIn(kBridgeCases),
                         [](const auto& param_info) { return param_info.param.name; });

TEST(PlacementFields, AreOptionalAndReadWhenStated) {
  std::string text = read_source_file(kQwenRc2Recipe);
  RecipeReport plain = validate_recipe_text(testing::bundled_catalog(), kQwenRc2Recipe, "", text);
  ASSERT_TRUE(plain.recipe) << describe(plain.problems);
  EXPECT_EQ(plain.recipe->layout.pipeline_layout, "");
  EXPECT_FALSE(plain.recipe->layout.account_for_embedding_in_pipeline_split);
  EXPECT_FALSE(plain.recipe->layout.account_for_loss_in_pipeline_split);

  auto [from, to] = layout_fields("  pipeline_layout: '" + kVpp2 +
                                  "'\n  account_for_embedding_in_pipeline_split: true\n"
                                  "  account_for_loss_in_pipeline_split: true\n");
  RecipeReport stated = validate_recipe_text(testing::bundled_catalog(), kQwenRc2Recipe, "",
                                             replace_all(text, from, to));
  ASSERT_TRUE(stated.recipe) << describe(stated.problems);
  EXPECT_EQ(stated.recipe->layout.pipeline_layout, kVpp2);
  EXPECT_TRUE(stated.recipe->layout.account_for_embedding_in_pipeline_split);
  EXPECT_TRUE(stated.recipe->layout.account_for_loss_in_pipeline_split);
}

TEST(PlacementFields, ALayoutStringOutsideMegatronsAlphabetIsASchemaProblem) {
  std::string text = read_source_file(kQwenRc2Recipe);
  auto [from, to] = layout_string("Et*12|t*12;rm -rf|t*12L");
  Problems problems = validate_as(kQwenRc2Recipe, replace_all(text, from, to));
  EXPECT_TRUE(has_rule(problems, "schema")) << describe(problems);
  auto [from2, to2] = layout_fields("  account_for_loss_in_pipeline_split: yes please\n");
  problems = validate_as(kQwenRc2Recipe, replace_all(text, from2, to2));
  EXPECT_TRUE(has_rule(problems, "schema")) << describe(problems);
}

}  // namespace
}  // namespace openrecipes
