#include "validate/recipe_validator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;
using testing::bundled_catalog;
using testing::kBundledRecipes;
using testing::source_dir;

// Enough files for several threads (one per 64 files), each bundled recipe many times over, with
// every third one broken in its own way, so that a report out of place would show.
TEST(ValidateRecipeFiles, ReportsInInputOrderAsOneThreadWould) {
  fs::path folder = testing::fresh_dir("validate_recipe_files");
  std::vector<std::string> paths;
  for (int i = 0; i < 300; ++i) {
    std::string bundled = kBundledRecipes[static_cast<std::size_t>(i) % kBundledRecipes.size()];
    std::string text = testing::read_source_file(bundled);
    if (i % 3 == 0) {
      // a figure of its own, so that each broken file's messages are its own too
      text = testing::replace_all(
          text, "tokens_per_s_per_gpu: ", "tokens_per_s_per_gpu: " + std::to_string(i + 1));
    }
    fs::path path = folder / (std::to_string(i) + ".yaml");
    std::ofstream(path) << text;
    paths.push_back(path.string());
  }
  paths.push_back((folder / "missing.yaml").string());
  std::vector<RecipeReport> reports = validate_recipe_files(bundled_catalog(), paths);
  ASSERT_EQ(reports.size(), paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    RecipeReport alone = validate_recipe_file(bundled_catalog(), paths[i]);
    EXPECT_EQ(reports[i].display_path, paths[i]);
    EXPECT_EQ(reports[i].text, alone.text) << paths[i];
    ASSERT_EQ(reports[i].problems.size(), alone.problems.size()) << paths[i];
    for (std::size_t p = 0; p < alone.problems.size(); ++p) {
      EXPECT_EQ(reports[i].problems[p].message, alone.problems[p].message) << paths[i];
    }
  }
  // the edits broke what they meant to: more problems than the unedited file beside it
  EXPECT_GT(reports[0].problems.size(), reports[1].problems.size());
  EXPECT_EQ(reports.back().problems.at(0).message, "no such file");
}

// check_catalog remembers each clean recipe by its path and bytes; a recipe remembered is only
// parsed (the same recipe comes out), and one remembered must not be checked at all — which is
// why the caller keys what it remembers by everything else the checks read.
TEST(CheckCatalog, RemembersCleanRecipesAndOnlyParsesThoseItKnows) {
  fs::path root = testing::catalog_copy("check_catalog_clean");
  CleanRecipes clean;
  CatalogCheck first = check_catalog(root, {}, fs::current_path(), &clean);
  ASSERT_TRUE(first.problems.empty()) << testing::describe(first.problems);
  ASSERT_EQ(clean.found.size(), first.recipes.size());
  for (const CatalogRecipe& r : first.recipes) {
    EXPECT_TRUE(std::binary_search(clean.found.begin(), clean.found.end(),
                                   clean_recipe_key(r.catalog_path, r.text)))
        << r.catalog_path;
  }

  CleanRecipes again{{clean.found.begin(), clean.found.end()}, {}};
  CatalogCheck second = check_catalog(root, {}, fs::current_path(), &again);
  EXPECT_EQ(again.found, clean.found);
  ASSERT_EQ(second.recipes.size(), first.recipes.size());
  for (std::size_t i = 0; i < first.recipes.size(); ++i) {
    EXPECT_EQ(second.recipes[i].catalog_path, first.recipes[i].catalog_path);
    EXPECT_EQ(second.recipes[i].text, first.recipes[i].text);
    EXPECT_EQ(second.recipes[i].recipe.result.tokens_per_s_per_gpu,
              first.recipes[i].recipe.result.tokens_per_s_per_gpu);
    EXPECT_EQ(second.recipes[i].recipe.layout.ep, first.recipes[i].recipe.layout.ep);
    EXPECT_EQ(second.recipes[i].recipe.run, first.recipes[i].recipe.run);
  }

  // A broken recipe: found with its problem, never remembered; if its key were known, its checks
  // would be skipped.
  const std::string relative = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
  std::string broken =
      testing::replace_all(testing::read_file(root / relative), "usd_per_million_tokens: 0.23",
                           "usd_per_million_tokens: 0.24");
  std::ofstream(root / relative, std::ios::trunc) << broken;
  CleanRecipes after_edit{{clean.found.begin(), clean.found.end()}, {}};
  CatalogCheck third = check_catalog(root, {}, fs::current_path(), &after_edit);
  EXPECT_FALSE(third.problems.empty());
  EXPECT_EQ(after_edit.found.size(), clean.found.size() - 1);
  CleanRecipes trusted{{clean_recipe_key(relative, broken)}, {}};
  EXPECT_TRUE(check_catalog(root, {}, fs::current_path(), &trusted).problems.empty());
}

}  // namespace
}  // namespace openrecipes
