#include "catalog/recipe_file.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;

TEST(RecipeFile, ReadsABundledRecipeWithItsCatalog) {
  std::string root = testing::source_dir();
  Problems problems;
  std::optional<RecipeFile> file =
      read_recipe_file(root, root + "/recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml", problems);
  ASSERT_TRUE(file) << describe(problems);
  EXPECT_EQ(file->recipe.model, "gpt-oss-20b");
  EXPECT_NE(file->catalog.catalog.find_model("gpt-oss-20b"), nullptr);
}

TEST(RecipeFile, AFileThatIsNotARecipeIsProblems) {
  std::filesystem::path dir = testing::fresh_dir("recipe_file");
  std::ofstream(dir / "list.yaml") << "- a\n- b\n";
  Problems problems;
  EXPECT_FALSE(read_recipe_file(testing::source_dir(), (dir / "list.yaml").string(), problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, (dir / "list.yaml").string());
  problems.clear();
  EXPECT_FALSE(read_recipe_file(testing::source_dir(), "no/such.yaml", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, "no/such.yaml");
}

}  // namespace
}  // namespace openrecipes
