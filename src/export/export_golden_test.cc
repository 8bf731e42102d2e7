// Every export of the bundled recipes, and the planner's drafts with a hand-filled prediction,
// equals its golden file under tests/golden/export/. Regenerate them after an intended change:
//   OPENRECIPES_UPDATE_GOLDEN=1 build/tests/openrecipes_unit_tests --gtest_filter='ExportGolden*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/yaml_document.h"
#include "export/export_source.h"
#include "export/megatron_bridge_recipe.h"
#include "export/megatron_lm_command.h"
#include "export/planned_recipe.h"
#include "export/slime_command.h"
#include "figures/layout_label.h"
#include "runs/training_command.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;
using testing::bundled_catalog;
using testing::source_dir;

const ArgumentRules& golden_rules() { return testing::bundled_argument_rules(); }

Recipe bundled_recipe(const std::string& path) {
  RecipeReport report = validate_recipe_file(bundled_catalog(), source_dir() + "/" + path);
  EXPECT_TRUE(report.recipe) << testing::describe(report.problems);
  return *report.recipe;
}

ExportSource recipe_source(const std::string& path) {
  Problems error;
  std::optional<ExportSource> source = export_source_from_recipe(
      bundled_recipe(path), path, bundled_catalog().catalog, golden_rules(), error);
  EXPECT_TRUE(source) << testing::describe(error);
  return *source;
}

// The planner's case: gpt-oss-20b on 16 H200, TP1 PP2 EP8, settings from the bundled recipe,
// with fixed predictions (the golden files must not move with the calibration).
ExportSource planner_source() {
  const Catalog& catalog = bundled_catalog().catalog;
  const Model* model = catalog.find_model("gpt-oss-20b");
  const Gpu* gpu = catalog.find_gpu("H200");
  Layout layout;
  layout.pp = 2;
  layout.ep = 8;
  layout.max_tokens_per_gpu = 8192;
  layout.dispatcher = "alltoall";
  Recipe settings = bundled_recipe(testing::kBundledRecipes[0]);
  return export_source_from_layout(model->shape, model, {*gpu, 16, 8}, PlanWorkload{}, layout,
                                   &settings, testing::kBundledRecipes[0], golden_rules());
}

LayoutPrediction fixed_prediction(const ExportSource& source) {
  LayoutPrediction prediction;
  prediction.layout = source.layout;
  prediction.memory.memory_bytes = 61.25e9;
  prediction.memory.fits = true;
  prediction.speed.tokens_per_s_per_gpu = 9100.5;
  prediction.speed.mfu = 0.1992;
  prediction.speed.usd_per_million_tokens = 0.24;
  prediction.speed.step_time_s = 7.2;
  return prediction;
}

std::string read_file(const fs::path& path) { return testing::read_file(path); }

// Compares `text` with tests/golden/export/<name>, or rewrites it under
// OPENRECIPES_UPDATE_GOLDEN=1.
void expect_golden(const std::string& name, const std::string& text) {
  fs::path golden = fs::path(source_dir()) / "tests/golden/export" / name;
  if (std::getenv("OPENRECIPES_UPDATE_GOLDEN")) {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << text;
    return;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden
                                  << " is missing; regenerate with OPENRECIPES_UPDATE_GOLDEN=1";
  std::string expected = read_file(golden);
  if (expected == text) return;
  fs::path actual = fs::path(testing::fresh_dir("export_golden_" + name)) / name;
  std::ofstream(actual, std::ios::binary) << text;
  std::string diff = "diff -u '" + golden.string() + "' '" + actual.string() + "'";
  std::system(diff.c_str());
  ADD_FAILURE()
      << name
      << " differs from its golden file (diff above). If the change is intended, regenerate: "
      << "OPENRECIPES_UPDATE_GOLDEN=1 openrecipes_unit_tests --gtest_filter='ExportGolden*'";
}

// Runs python3 -m py_compile on `text`; returns its exit status.
int py_compile(const std::string& name, const std::string& text) {
  fs::path file = fs::path(testing::fresh_dir("export_py_" + name)) / (name + ".py");
  std::ofstream(file, std::ios::binary) << text;
  std::string command = "python3 -m py_compile '" + file.string() + "'";
  return std::system(command.c_str());
}

std::string stem(const std::string& recipe_path) {
  fs::path path(recipe_path);
  return path.parent_path().parent_path().filename().string() + "_" + path.stem().string();
}

TEST(ExportGolden, RecipesToThreeFrameworks) {
  for (const std::string& path : testing::kBundledRecipes) {
    SCOPED_TRACE(path);
    ExportSource source = recipe_source(path);
    expect_golden(stem(path) + ".slime.sh", slime_command(source));
    expect_golden(stem(path) + ".megatron-lm.sh", megatron_lm_command(source));
    expect_golden(stem(path) + ".megatron-bridge.py",
                  megatron_bridge_recipe(source, golden_rules()));
  }
}

TEST(ExportGolden, PlannerDraftsWithFixedPredictions) {
  ExportSource source = planner_source();
  LayoutPrediction prediction = fixed_prediction(source);
  expect_golden("planned_gpt-oss-20b_tp1-pp2-ep8.slime.yaml",
                planned_recipe_yaml(source, prediction, slime_command(source)));
  expect_golden("planned_gpt-oss-20b_tp1-pp2-ep8.megatron-lm.yaml",
                planned_recipe_yaml(source, prediction, megatron_lm_command(source)));
  expect_golden("planned_gpt-oss-20b_tp1-pp2-ep8.megatron-bridge.py",
                megatron_bridge_recipe(source, golden_rules(), &prediction));
}

// The placement cases: Qwen3.5-122B-A10B's 48 layers on PP 4 VPP 2 as an explicit layout
// string (eight chunks of six layers, the embedding on the first, the loss on the last), and
// gpt-oss-20b's 24 layers on PP 2 with the embedding and the loss counted as layers. Neither is
// the measured layout, so the recipe's run is dropped and slime writes a draft too.
const std::string kVpp2Layout = "Et*6|(t*6|)*6t*6L";

ExportSource layout_string_source() {
  ExportSource source = recipe_source(testing::kBundledRecipes[3]);
  source.layout.vpp = 2;
  source.layout.pipeline_layout = kVpp2Layout;
  source.layout.label = layout_label(source.layout);
  source.run_text.clear();
  return source;
}

ExportSource account_for_source() {
  ExportSource source = recipe_source(testing::kBundledRecipes[0]);
  source.layout.account_for_embedding_in_pipeline_split = true;
  source.layout.account_for_loss_in_pipeline_split = true;
  source.run_text.clear();
  return source;
}

TEST(ExportGolden, PlacementsToThreeFrameworks) {
  const std::pair<std::string, ExportSource> cases[] = {
      {"placement_qwen3.5-122b-a10b_tp1-pp4-vpp2-ep8-layout", layout_string_source()},
      {"placement_gpt-oss-20b_tp1-pp2-ep4-account-for", account_for_source()}};
  for (const auto& [name, source] : cases) {
    SCOPED_TRACE(name);
    expect_golden(name + ".slime.sh", slime_command(source));
    expect_golden(name + ".megatron-lm.sh", megatron_lm_command(source));
    std::string bridge = megatron_bridge_recipe(source, golden_rules());
    expect_golden(name + ".megatron-bridge.py", bridge);
    EXPECT_EQ(py_compile(name, bridge), 0) << bridge;
  }
}

TEST(ExportPlacement, TheLayoutStringIsOneShellWordInPlaceOfTheVppFlag) {
  ExportSource source = layout_string_source();
  for (const std::string& text : {megatron_lm_command(source), slime_command(source)}) {
    TrainingCommand command = read_training_command(text, golden_rules());
    ASSERT_TRUE(command.problems.empty()) << command.problems.front().message;
    const TrainingArgument* layout = command.find("pipeline_model_parallel_layout");
    ASSERT_NE(layout, nullptr) << text;
    EXPECT_EQ(layout->value, kVpp2Layout);
    // Megatron-LM's validate_args allows one of the layout string and the VPP flags.
    EXPECT_EQ(command.find("virtual_pipeline_model_parallel_size"), nullptr) << text;
  }
  std::string bridge = megatron_bridge_recipe(source, golden_rules());
  EXPECT_NE(bridge.find("cfg.model.pipeline_model_parallel_layout = \"" + kVpp2Layout + "\"\n"),
            std::string::npos)
      << bridge;
  EXPECT_NE(bridge.find("cfg.model.virtual_pipeline_model_parallel_size = 2\n"), std::string::npos);
}

TEST(ExportPlacement, TheAccountForSwitchesAreWrittenForEveryFramework) {
  ExportSource source = account_for_source();
  for (const std::string& text : {megatron_lm_command(source), slime_command(source)}) {
    TrainingCommand command = read_training_command(text, golden_rules());
    EXPECT_NE(command.find("account_for_embedding_in_pipeline_split"), nullptr) << text;
    EXPECT_NE(command.find("account_for_loss_in_pipeline_split"), nullptr) << text;
  }
  std::string bridge = megatron_bridge_recipe(source, golden_rules());
  EXPECT_NE(bridge.find("cfg.model.account_for_embedding_in_pipeline_split = True\n"),
            std::string::npos);
  EXPECT_NE(bridge.find("cfg.model.account_for_loss_in_pipeline_split = True\n"),
            std::string::npos);
  // A plain recipe sets them off explicitly, so a base recipe's placement does not carry over.
  std::string plain =
      megatron_bridge_recipe(recipe_source(testing::kBundledRecipes[0]), golden_rules());
  EXPECT_NE(plain.find("cfg.model.pipeline_model_parallel_layout = None\n"), std::string::npos);
  EXPECT_NE(plain.find("cfg.model.account_for_loss_in_pipeline_split = False\n"),
            std::string::npos);
}

// A planned draft of each placement validates: the draft's layout block states the placement and
// its command agrees with it (run.placement, run.layout).
TEST(PlannedRecipe, PlacementDraftsValidateWithTheirCommands) {
  for (const ExportSource& source : {layout_string_source(), account_for_source()}) {
    LayoutPrediction prediction = fixed_prediction(source);
    for (const std::string& run : {slime_command(source), megatron_lm_command(source)}) {
      std::string text = planned_recipe_yaml(source, prediction, run);
      RecipeReport report = validate_recipe_text(bundled_catalog(), "draft.yaml", "", text);
      EXPECT_TRUE(report.problems.empty()) << testing::describe(report.problems) << text;
      ASSERT_TRUE(report.recipe);
      EXPECT_EQ(report.recipe->layout.pipeline_layout, source.layout.pipeline_layout);
      EXPECT_EQ(report.recipe->layout.account_for_loss_in_pipeline_split,
                source.layout.account_for_loss_in_pipeline_split);
    }
  }
}

// Selective recompute with its modules: Megatron-LM's and slime's --recompute-modules, Bridge's
// recompute_modules, and a planned draft that states them and validates with its command.
TEST(ExportRecompute, ModulesAreWrittenForEveryFramework) {
  ExportSource source = recipe_source(testing::kBundledRecipes[0]);
  source.layout.recompute = Recompute{"selective", "", std::nullopt, {"moe_act", "layernorm"}};
  source.run_text.clear();
  for (const std::string& text : {megatron_lm_command(source), slime_command(source)}) {
    TrainingCommand command = read_training_command(text, golden_rules());
    ASSERT_TRUE(command.problems.empty()) << command.problems.front().message;
    const TrainingArgument* modules = command.find("recompute_modules");
    ASSERT_NE(modules, nullptr) << text;
    EXPECT_EQ(modules->value, "moe_act layernorm");
  }
  std::string bridge = megatron_bridge_recipe(source, golden_rules());
  EXPECT_NE(bridge.find("cfg.model.recompute_modules = [\"moe_act\", \"layernorm\"]\n"),
            std::string::npos)
      << bridge;
  EXPECT_EQ(py_compile("recompute_modules", bridge), 0) << bridge;
  // Bare selective states Megatron-Core's default, so a base recipe's list does not carry over.
  source.layout.recompute->modules.clear();
  EXPECT_NE(megatron_bridge_recipe(source, golden_rules())
                .find("cfg.model.recompute_modules = [\"core_attn\"]\n"),
            std::string::npos);
  source.layout.recompute->modules = {"moe_act"};
  LayoutPrediction prediction = fixed_prediction(source);
  for (const std::string& run : {slime_command(source), megatron_lm_command(source)}) {
    std::string text = planned_recipe_yaml(source, prediction, run);
    RecipeReport report = validate_recipe_text(bundled_catalog(), "draft.yaml", "", text);
    EXPECT_TRUE(report.problems.empty()) << testing::describe(report.problems) << text;
    ASSERT_TRUE(report.recipe && report.recipe->layout.recompute);
    EXPECT_EQ(report.recipe->layout.recompute->modules, std::vector<std::string>{"moe_act"});
  }
}

TEST(ExportBridge, EveryRecipeModuleIsValidPython) {
  for (const std::string& path : testing::kBundledRecipes) {
    SCOPED_TRACE(path);
    std::string text = megatron_bridge_recipe(recipe_source(path), golden_rules());
    EXPECT_EQ(py_compile(stem(path), text), 0) << text;
  }
  ExportSource source = planner_source();
  LayoutPrediction prediction = fixed_prediction(source);
  EXPECT_EQ(py_compile("planned", megatron_bridge_recipe(source, golden_rules(), &prediction)), 0);
}

TEST(ExportBridge, FunctionNamesFollowTheModel) {
  EXPECT_EQ(bridge_function_name("gpt-oss-20b"), "gpt_oss_20b_sft_config");
  EXPECT_EQ(bridge_function_name("Qwen3.5-122B-A10B"), "qwen35_122b_a10b_sft_config");
}

TEST(ExportMegatronLm, CommandCarriesTheRecipeLayout) {
  for (const std::string& path : testing::kBundledRecipes) {
    SCOPED_TRACE(path);
    Recipe recipe = bundled_recipe(path);
    TrainingCommand command =
        read_training_command(megatron_lm_command(recipe_source(path)), golden_rules());
    ASSERT_TRUE(command.problems.empty()) << command.problems.front().message;
    auto value = [&](const char* name) {
      const TrainingArgument* argument = command.find(name);
      return argument ? argument->value : std::string("1");
    };
    const Layout& l = recipe.layout;
    EXPECT_EQ(value("tensor_model_parallel_size"), std::to_string(l.tp));
    EXPECT_EQ(value("pipeline_model_parallel_size"), std::to_string(l.pp));
    EXPECT_EQ(value("context_parallel_size"), std::to_string(l.cp));
    EXPECT_EQ(value("expert_model_parallel_size"), std::to_string(l.ep));
    EXPECT_EQ(value("expert_tensor_parallel_size"), std::to_string(l.etp));
    EXPECT_EQ(value("micro_batch_size"), std::to_string(l.rows_per_microbatch));
    EXPECT_EQ(value("global_batch_size"), "128");
    EXPECT_EQ(value("train_iters"), "20");
    if (l.recompute) {
      EXPECT_EQ(value("recompute_granularity"), l.recompute->granularity);
    }
    EXPECT_EQ(value("moe_token_dispatcher_type"), l.dispatcher);
    EXPECT_EQ(command.find("max_tokens_per_gpu"), nullptr);  // slime only
  }
}

TEST(PlannedRecipe, ValidatesOutsideRecipesAndIsReportedInside) {
  ExportSource source = planner_source();
  LayoutPrediction prediction = fixed_prediction(source);
  for (const std::string& run : {slime_command(source), megatron_lm_command(source)}) {
    std::string text = planned_recipe_yaml(source, prediction, run);
    RecipeReport outside = validate_recipe_text(bundled_catalog(), "draft.yaml", "", text);
    EXPECT_TRUE(outside.problems.empty()) << testing::describe(outside.problems) << text;
    Problems inside =
        testing::validate_as("recipes/gpt-oss-20b/h200/your-handle-tp1-pp2-ep8.yaml", text);
    EXPECT_EQ(testing::rules_of(inside), std::vector<std::string>{"status.planned"})
        << testing::describe(inside);
  }
}

TEST(PlannedRecipe, NullResultIsRejectedUnlessPlanned) {
  ExportSource source = planner_source();
  std::string text = planned_recipe_yaml(source, fixed_prediction(source), slime_command(source));
  std::string edited = testing::replace_all(text, "status: planned", "status: unverified");
  RecipeReport report = validate_recipe_text(bundled_catalog(), "draft.yaml", "", edited);
  EXPECT_TRUE(testing::has_rule(report.problems, "schema")) << testing::describe(report.problems);
}

}  // namespace
}  // namespace openrecipes
