// The catalog's recipes as the calibration sees them: renamed copies count once.
#include "plan/catalog_measurements.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <utility>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// The bundled catalog rooted in a copy whose models/ also holds `copy_slug`, a copy of
// gpt-oss-20b's folder with `config_suffix` appended to its config.json, listed as a model named
// `copy_slug`.
Catalog catalog_with_model_copy(const std::string& folder, const std::string& copy_slug,
                                const std::string& config_suffix) {
  fs::path root = testing::catalog_copy(folder);
  fs::copy(root / "models" / "gpt-oss-20b", root / "models" / copy_slug);
  std::ofstream(root / "models" / copy_slug / "config.json", std::ios::app) << config_suffix;
  Catalog catalog = testing::bundled_catalog().catalog;
  catalog.root = root;
  const Model* original = catalog.find_model("gpt-oss-20b");
  EXPECT_TRUE(original);
  Model copy = *original;
  copy.name = copy.slug = copy.shape.name = copy_slug;
  catalog.models.push_back(copy);
  return catalog;
}

// The bundled recipes, then the gpt-oss-20b recipe again under the model `copy_model`, scoring
// `tokens_per_s_per_gpu` (0: its own score).
std::vector<CatalogRecipe> recipes_with_copy(const std::string& copy_model,
                                             double tokens_per_s_per_gpu = 0) {
  std::vector<CatalogRecipe> recipes;
  for (const std::string& path : testing::kBundledRecipes) {
    RecipeReport report =
        validate_recipe_file(testing::bundled_catalog(), testing::source_dir() + "/" + path);
    EXPECT_TRUE(report.recipe) << path;
    if (report.recipe) recipes.push_back({path, "", *report.recipe});
  }
  CatalogRecipe copy = recipes.front();
  EXPECT_EQ(copy.recipe.model, "gpt-oss-20b");
  copy.catalog_path = "recipes/" + copy_model + "/h200/attune-tp1-pp2-ep4.yaml";
  copy.recipe.model = copy_model;
  if (tokens_per_s_per_gpu > 0) copy.recipe.result.tokens_per_s_per_gpu = tokens_per_s_per_gpu;
  recipes.push_back(copy);
  return recipes;
}

TEST(DistinctMeasuredLayouts, CountARenamedCopyOfARecipeOnce) {
  Catalog catalog = catalog_with_model_copy("distinct_copy", "gpt-oss-20b-copy", "");
  std::vector<CatalogRecipe> recipes = recipes_with_copy("gpt-oss-20b-copy");
  ASSERT_EQ(measured_layouts(catalog, recipes).size(), recipes.size());
  std::vector<MeasuredLayout> distinct = distinct_measured_layouts(catalog, recipes);
  ASSERT_EQ(distinct.size(), recipes.size() - 1);
  // The first of the two is kept, under its own name.
  EXPECT_EQ(distinct.front().name, testing::kBundledRecipes.front());
  for (const MeasuredLayout& m : distinct) EXPECT_NE(m.model.name, "gpt-oss-20b-copy");
  EXPECT_EQ(model_config_digest(catalog, *catalog.find_model("gpt-oss-20b")),
            model_config_digest(catalog, *catalog.find_model("gpt-oss-20b-copy")));
}

// The model a command plans keeps its own copy, in the place of the first.
TEST(DistinctMeasuredLayouts, KeepThePlannedModelsCopy) {
  Catalog catalog = catalog_with_model_copy("distinct_keep", "gpt-oss-20b-copy", "");
  std::vector<CatalogRecipe> recipes = recipes_with_copy("gpt-oss-20b-copy");
  std::vector<MeasuredLayout> first = distinct_measured_layouts(catalog, recipes);
  std::vector<MeasuredLayout> kept =
      distinct_measured_layouts(catalog, recipes, "gpt-oss-20b-copy");
  ASSERT_EQ(kept.size(), first.size());
  EXPECT_EQ(kept.front().model.name, "gpt-oss-20b-copy");
  EXPECT_EQ(kept.front().name, "recipes/gpt-oss-20b-copy/h200/attune-tp1-pp2-ep4.yaml");
  for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_EQ(kept[i].name, first[i].name);
  // A model without a copy changes nothing.
  std::vector<MeasuredLayout> other = distinct_measured_layouts(catalog, recipes, "gpt-oss-20b");
  ASSERT_EQ(other.size(), first.size());
  for (std::size_t i = 0; i < other.size(); ++i) EXPECT_EQ(other[i].name, first[i].name);
}

TEST(DistinctMeasuredLayouts, KeepACopyThatScoresOtherwiseOrRunsAnotherConfig) {
  Catalog same_config = catalog_with_model_copy("distinct_score", "gpt-oss-20b-copy", "");
  std::vector<CatalogRecipe> rescored = recipes_with_copy("gpt-oss-20b-copy", 9000.5);
  EXPECT_EQ(distinct_measured_layouts(same_config, rescored).size(), rescored.size());
  // A layout field beyond the sizes, recompute and placement: the optimizer offload.
  std::vector<CatalogRecipe> offloaded = recipes_with_copy("gpt-oss-20b-copy");
  offloaded.back().recipe.layout.offload = Offload{0.5, false};
  EXPECT_EQ(distinct_measured_layouts(same_config, offloaded).size(), offloaded.size());

  // One byte more in the copy's config.json: another model to the planner.
  Catalog other_config = catalog_with_model_copy("distinct_config", "gpt-oss-20b-copy", "\n");
  EXPECT_NE(model_config_digest(other_config, *other_config.find_model("gpt-oss-20b")),
            model_config_digest(other_config, *other_config.find_model("gpt-oss-20b-copy")));
  std::vector<CatalogRecipe> recipes = recipes_with_copy("gpt-oss-20b-copy");
  EXPECT_EQ(distinct_measured_layouts(other_config, recipes).size(), recipes.size());
}

// The evidence holds every field the planner reads from a recipe and nothing else.
TEST(MeasurementEvidence, ChangesWithWhatIsMeasuredAndOnlyWithThat) {
  const std::vector<CatalogRecipe> recipes = recipes_with_copy("gpt-oss-20b-copy");
  const std::string evidence = measurement_evidence(recipes);
  auto edited = [&](auto edit) {
    std::vector<CatalogRecipe> copy = recipes;
    edit(copy.front());
    return measurement_evidence(copy);
  };
  EXPECT_EQ(edited([](CatalogRecipe& e) {
              e.text += "# a comment\n";
              e.recipe.notes = "other notes";
              e.recipe.result.step_time_cv_percent += 1;
            }),
            evidence);
  std::vector<std::pair<std::string, std::function<void(CatalogRecipe&)>>> measured = {
      {"path", [](CatalogRecipe& e) { e.catalog_path += "x"; }},
      {"status", [](CatalogRecipe& e) { e.recipe.status = "unverified"; }},
      {"model", [](CatalogRecipe& e) { e.recipe.model = "gpt-oss-20b-copy"; }},
      {"gpu type", [](CatalogRecipe& e) { e.recipe.gpu.type = "H100"; }},
      {"gpu count", [](CatalogRecipe& e) { e.recipe.gpu.count = 16; }},
      {"per node", [](CatalogRecipe& e) { e.recipe.gpu.per_node = 4; }},
      {"row tokens", [](CatalogRecipe& e) { e.recipe.workload.row_tokens = 4096; }},
      {"global batch", [](CatalogRecipe& e) { e.recipe.workload.global_batch = 256; }},
      {"precision", [](CatalogRecipe& e) { e.recipe.workload.precision = "fp8"; }},
      {"tp", [](CatalogRecipe& e) { e.recipe.layout.tp = 2; }},
      {"sequence parallel", [](CatalogRecipe& e) { e.recipe.layout.sequence_parallel ^= true; }},
      {"pipeline layout", [](CatalogRecipe& e) { e.recipe.layout.pipeline_layout = "Et|tL"; }},
      {"max tokens", [](CatalogRecipe& e) { e.recipe.layout.max_tokens_per_gpu += 1; }},
      {"offload",
       [](CatalogRecipe& e) {
         e.recipe.layout.offload = Offload{0.5, false};
       }},
      {"dispatcher", [](CatalogRecipe& e) { e.recipe.layout.dispatcher = "flex"; }},
      {"run", [](CatalogRecipe& e) { e.recipe.run += " --tp-comm-overlap"; }},
      {"score", [](CatalogRecipe& e) { e.recipe.result.tokens_per_s_per_gpu += 0.001; }},
  };
  for (const auto& [name, edit] : measured) EXPECT_NE(edited(edit), evidence) << name;
}

}  // namespace
}  // namespace openrecipes
