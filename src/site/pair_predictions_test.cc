// The planner's suggestions for the site's unmeasured pairs, on the bundled catalog.
#include "site/pair_predictions.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "catalog/ranking.h"
#include "layout/layout_text.h"
#include "plan/catalog_measurements.h"
#include "plan/layout_plan.h"
#include "plan/published_measurements.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

const SitePredictions& bundled_predictions() {
  static const SitePredictions predictions =
      predict_unmeasured_pairs(testing::bundled_catalog_check());
  return predictions;
}

TEST(PairPredictions, CoverExactlyThePairsWithoutAVerifiedRecipe) {
  const CatalogCheck& check = testing::bundled_catalog_check();
  ASSERT_TRUE(check.problems.empty()) << testing::describe(check.problems);
  const Catalog& catalog = check.loaded->catalog;
  const SitePredictions& predictions = bundled_predictions();
  std::size_t unmeasured = 0;
  for (const Model& model : catalog.models) {
    for (const Gpu& gpu : catalog.gpus) {
      bool measured = !rank_recipes(check.recipes, model.name, gpu.type).empty();
      unmeasured += !measured;
      EXPECT_EQ(predictions.find(model.name, gpu.type) == nullptr, measured)
          << model.name << " on " << gpu.type;
    }
  }
  EXPECT_EQ(predictions.pairs.size(), unmeasured);
  EXPECT_GT(predictions.calibrated_rows, 100u);
  EXPECT_GT(predictions.mape, 0);
  for (const PairPrediction& p : predictions.pairs) {
    if (p.layouts.empty()) {
      EXPECT_FALSE(p.no_layout_reason.empty()) << p.model << " on " << p.gpu_type;
      continue;
    }
    EXPECT_LE(p.layouts.size(), kSuggestedLayouts);
    EXPECT_GT(p.gpus, 0);
    for (std::size_t i = 0; i < p.layouts.size(); ++i) {
      EXPECT_GT(p.layouts[i].band, 0) << p.model << " on " << p.gpu_type;
      if (i > 0) {
        EXPECT_GE(p.layouts[i - 1].tokens_per_s_per_gpu, p.layouts[i].tokens_per_s_per_gpu);
      }
    }
  }
}

// A parallel layout as the test tells one from another: sizes, placement, micro-batch and
// dispatcher; not recompute or offloading.
std::string parallel_layout_key(const Layout& l) {
  return fmt::format("TP{} PP{} VPP{} CP{} EP{} ETP{} DP{} MBS{} {} {} {} {}", l.tp, l.pp, l.vpp,
                     l.cp, l.ep, l.etp, l.dp, l.rows_per_microbatch, l.pipeline_layout,
                     l.account_for_embedding_in_pipeline_split,
                     l.account_for_loss_in_pipeline_split, l.dispatcher);
}

// The site shows what `plan` ranks: the same calibration, request and top layouts, each parallel
// layout once, with its fastest recompute (the search ranks every recompute of a layout).
TEST(PairPredictions, AreWhatPlanRanksForTheSameRequest) {
  const CatalogCheck& check = testing::bundled_catalog_check();
  const Catalog& catalog = check.loaded->catalog;
  const PairPrediction* site = bundled_predictions().find("Qwen3-30B-A3B", "H200");
  ASSERT_NE(site, nullptr);
  ASSERT_EQ(site->gpus, 8);  // one node of H200 holds a 30B model
  std::vector<MeasuredLayout> measured = measured_layouts(catalog, check.recipes);
  PublishedLayouts published =
      published_layouts(catalog.root, *check.measurements, catalog.gpus, &catalog.models);
  measured.insert(measured.end(), published.layouts.begin(), published.layouts.end());
  SpeedCalibration calibration = calibrate_speed_model(measured);
  PlanArguments arguments;
  arguments.model = "qwen3-30b-a3b";
  arguments.gpu = "H200";
  arguments.gpus = 8;
  Problems problems;
  std::optional<PlanRequest> request = resolve_plan_request(catalog, arguments, problems);
  ASSERT_TRUE(request) << testing::describe(problems);
  LayoutPlan plan = plan_layouts(*request, measured, calibration, 100);
  std::vector<std::size_t> firsts;  // the first ranked index of each parallel layout
  std::set<std::string> seen;
  for (std::size_t i = 0; i < plan.search.ranked.size() && firsts.size() < 3; ++i) {
    if (seen.insert(parallel_layout_key(plan.search.ranked[i].layout)).second) firsts.push_back(i);
  }
  // Some layout has more than one recompute among the best, or the test would not tell.
  ASSERT_GT(firsts.back(), 2u);
  ASSERT_EQ(site->layouts.size(), firsts.size());
  for (std::size_t i = 0; i < site->layouts.size(); ++i) {
    const std::size_t r = firsts[i];
    EXPECT_EQ(site->layouts[i].layout, plan.search.ranked[r].layout.label);
    EXPECT_EQ(site->layouts[i].recompute, recompute_text(plan.search.ranked[r].layout.recompute));
    EXPECT_DOUBLE_EQ(site->layouts[i].tokens_per_s_per_gpu,
                     plan.search.ranked[r].speed.tokens_per_s_per_gpu);
    EXPECT_DOUBLE_EQ(site->layouts[i].band, plan.ranked_bands[r].relative_error);
    // "alltoall", or "flex" with its backend: "flex (DeepEP)".
    EXPECT_EQ(site->layouts[i].dispatcher.rfind(plan.search.ranked[r].layout.dispatcher, 0), 0u)
        << site->layouts[i].dispatcher;
    EXPECT_EQ(
        site->layouts[i].export_arguments.rfind("--model qwen3-30b-a3b --gpu H200 --gpus 8 ", 0),
        0u)
        << site->layouts[i].export_arguments;
  }
}

// A model listed twice under two names (the same config.json) is searched once; the copy's
// commands name the copy.
TEST(PairPredictions, ACopyOfAModelSharesItsSearchAndNamesItself) {
  fs::path root = testing::fresh_dir("pair_predictions_copy");
  fs::path source = testing::source_dir();
  for (const char* entry : {"models.yaml", "gpus.yaml", "authors.yaml", "site.yaml", "schema",
                            "patches", "templates", "models", "recipes", "rules"}) {
    fs::copy(source / entry, root / entry, fs::copy_options::recursive);
  }
  fs::copy(source / "models" / "llama3-8b", root / "models" / "llama3-8b-copy");
  std::ofstream(root / "models.yaml", std::ios::app)
      << "  - name: Llama-3-8B-copy\n    slug: llama3-8b-copy\n    family: Llama\n"
         "    hf_repo: meta-llama/Meta-Llama-3-8B\n    notes: A copy.\n";
  CatalogCheck check = check_catalog(root, {}, fs::current_path());
  ASSERT_TRUE(check.problems.empty()) << testing::describe(check.problems);
  SitePredictions predictions = predict_unmeasured_pairs(check);
  const PairPrediction* original = predictions.find("Llama-3-8B", "H100");
  const PairPrediction* copy = predictions.find("Llama-3-8B-copy", "H100");
  ASSERT_TRUE(original && copy);
  ASSERT_FALSE(copy->layouts.empty());
  ASSERT_EQ(copy->layouts.size(), original->layouts.size());
  for (std::size_t i = 0; i < copy->layouts.size(); ++i) {
    EXPECT_EQ(copy->layouts[i].tokens_per_s_per_gpu, original->layouts[i].tokens_per_s_per_gpu);
    EXPECT_EQ(copy->layouts[i].export_arguments.rfind("--model llama3-8b-copy ", 0), 0u)
        << copy->layouts[i].export_arguments;
  }
  fs::remove_all(root);
}

// Pairs the site does not search get a reason that names the cause.
TEST(PairPredictions, SayWhyAVeryDeepModelOrAHugeNodeIsNotSearched) {
  fs::path root = testing::fresh_dir("pair_predictions_limits");
  fs::path source = testing::source_dir();
  for (const char* entry : {"models.yaml", "gpus.yaml", "authors.yaml", "site.yaml", "schema",
                            "patches", "templates", "models", "recipes", "rules"}) {
    fs::copy(source / entry, root / entry, fs::copy_options::recursive);
  }
  std::string config = testing::read_source_file("models/llama3-8b/config.json");
  std::ofstream(root / "models" / "llama3-8b" / "config.json")
      << testing::replace_all(config, "\"num_hidden_layers\": 32", "\"num_hidden_layers\": 600");
  std::string gpus = testing::read_source_file("gpus.yaml");
  std::ofstream(root / "gpus.yaml")
      << testing::replace_all(gpus, "    per_node: 4\n", "    per_node: 2048\n");
  CatalogCheck check = check_catalog(root, {}, fs::current_path());
  ASSERT_TRUE(check.problems.empty()) << testing::describe(check.problems);
  SitePredictions predictions = predict_unmeasured_pairs(check);
  const PairPrediction* deep = predictions.find("Llama-3-8B", "H100");
  ASSERT_NE(deep, nullptr);
  EXPECT_TRUE(deep->layouts.empty());
  EXPECT_NE(deep->no_layout_reason.find("has 600 layers"), std::string::npos)
      << deep->no_layout_reason;
  const PairPrediction* huge = predictions.find("gpt-oss-20b", "GB200");
  ASSERT_NE(huge, nullptr);
  EXPECT_TRUE(huge->layouts.empty());
  EXPECT_NE(huge->no_layout_reason.find("holds 2048 GPUs"), std::string::npos)
      << huge->no_layout_reason;
  fs::remove_all(root);
}

// With no verified recipe the planner is not calibrated, and `plan` refuses: so does the site.
TEST(PairPredictions, NoVerifiedRecipeMeansNoSuggestionAndSaysWhy) {
  fs::path root = testing::fresh_dir("pair_predictions_no_recipes");
  fs::path source = testing::source_dir();
  for (const char* entry : {"models.yaml", "gpus.yaml", "authors.yaml", "site.yaml", "schema",
                            "patches", "templates", "models", "rules"}) {
    fs::copy(source / entry, root / entry, fs::copy_options::recursive);
  }
  fs::create_directories(root / "recipes");
  CatalogCheck check = check_catalog(root, {}, fs::current_path());
  ASSERT_TRUE(check.problems.empty()) << testing::describe(check.problems);
  SitePredictions predictions = predict_unmeasured_pairs(check);
  const Catalog& catalog = check.loaded->catalog;
  ASSERT_EQ(predictions.pairs.size(), catalog.models.size() * catalog.gpus.size());
  EXPECT_EQ(predictions.calibrated_rows, 0u);
  for (const PairPrediction& p : predictions.pairs) {
    EXPECT_TRUE(p.layouts.empty());
    EXPECT_NE(p.no_layout_reason.find("verified recipes"), std::string::npos) << p.no_layout_reason;
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace openrecipes
