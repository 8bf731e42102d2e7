// Every export of the bundled recipes, and the planner's drafts with a hand-filled prediction,
// equals its golden file under tests/golden/export/. Regenerate them after an intended change:
//   OPENRECIPES_UPDATE_GOLDEN=1 build/openrecipes_tests --gtest_filter='ExportGolden*'
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
#include "runs/training_command.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;
using testing::bundled_catalog;
using testing::source_dir;

const ArgumentRules& rules() { return testing::bundled_argument_rules(); }

Recipe bundled_recipe(const std::string& path) {
  RecipeReport report = validate_recipe_file(bundled_catalog(), source_dir() + "/" + path);
  EXPECT_TRUE(report.recipe) << testing::describe(report.problems);
  return *report.recipe;
}

ExportSource recipe_source(const std::string& path) {
  Problems error;
  std::optional<ExportSource> source = export_source_from_recipe(
      bundled_recipe(path), path, bundled_catalog().catalog, rules(), error);
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
                                   &settings, testing::kBundledRecipes[0], rules());
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

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

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
      << "OPENRECIPES_UPDATE_GOLDEN=1 openrecipes_tests --gtest_filter='ExportGolden*'";
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
    expect_golden(stem(path) + ".megatron-bridge.py", megatron_bridge_recipe(source, rules()));
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
                megatron_bridge_recipe(source, rules(), &prediction));
}

TEST(ExportBridge, EveryRecipeModuleIsValidPython) {
  for (const std::string& path : testing::kBundledRecipes) {
    SCOPED_TRACE(path);
    std::string text = megatron_bridge_recipe(recipe_source(path), rules());
    EXPECT_EQ(py_compile(stem(path), text), 0) << text;
  }
  ExportSource source = planner_source();
  LayoutPrediction prediction = fixed_prediction(source);
  EXPECT_EQ(py_compile("planned", megatron_bridge_recipe(source, rules(), &prediction)), 0);
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
        read_training_command(megatron_lm_command(recipe_source(path)), rules());
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
