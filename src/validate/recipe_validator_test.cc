#include "validate/recipe_validator.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace openrecipes
