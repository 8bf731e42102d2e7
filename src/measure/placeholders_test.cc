#include "measure/placeholders.h"

#include <gtest/gtest.h>

#include "catalog/recipe.h"
#include "test_support.h"

namespace openrecipes {
namespace {

std::string bundled_run(const std::string& path) {
  Problems problems;
  std::optional<YamlDocument> document =
      parse_yaml(testing::read_source_file(path), path, problems);
  EXPECT_TRUE(document) << testing::describe(problems);
  return document ? recipe_from_yaml(document->root).run : "";
}

// Every bundled recipe runs `python3 -m <slime entry module>`, once.
TEST(Placeholders, EachBundledRecipeHasTheSlimeEntryModule) {
  for (const std::string& path : testing::kBundledRecipes) {
    std::vector<Placeholder> found = find_placeholders(bundled_run(path));
    ASSERT_EQ(found.size(), 1u) << path;
    EXPECT_EQ(found[0].name, "slime entry module") << path;
  }
  // gpt-oss: after the 12 lines of MODEL_ARGS, three exports and a blank line.
  EXPECT_EQ(find_placeholders(bundled_run(testing::kBundledRecipes[0]))[0].line, 16);
}

TEST(Placeholders, CommentsRedirectionsAndComparisonsAreNotPlaceholders) {
  EXPECT_TRUE(find_placeholders("# run <x> here\necho a 2>&1 >log <in\n[ 1 -lt 2 ]\n").empty());
  std::vector<Placeholder> found =
      find_placeholders("export A=1\ntorchrun <training script> --x \"<a>\" <a> --y '<b c>'\n");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "training script");
  EXPECT_EQ(found[0].line, 2);
  EXPECT_EQ(found[1].name, "a");  // once per name and line
  EXPECT_EQ(found[2].name, "b c");
}

TEST(Placeholders, KeysIgnoreCaseAndTreatBlankUnderscoreAndDashAlike) {
  EXPECT_TRUE(placeholder_key_matches("slime entry module", "slime entry module"));
  EXPECT_TRUE(placeholder_key_matches("slime-entry-module", "slime entry module"));
  EXPECT_TRUE(placeholder_key_matches("SLIME_ENTRY_MODULE", "slime entry module"));
  EXPECT_FALSE(placeholder_key_matches("slime entry", "slime entry module"));
}

TEST(Placeholders, TheEntryModuleTakesAPythonModuleName) {
  EXPECT_FALSE(placeholder_value_problem("slime entry module", "train_async"));
  EXPECT_FALSE(placeholder_value_problem("slime entry module", "slime.train"));
  EXPECT_TRUE(placeholder_value_problem("slime entry module", "slime/train_async.py"));
  EXPECT_TRUE(placeholder_value_problem("slime entry module", "train; rm -rf /"));
  EXPECT_TRUE(placeholder_value_problem("slime entry module", ""));
  EXPECT_TRUE(placeholder_value_problem("slime entry module", "1train"));
  // Any other placeholder: characters the shell reads as themselves.
  EXPECT_FALSE(placeholder_value_problem("checkpoint dir", "/ckpt/gpt-oss_20b:v1"));
  EXPECT_TRUE(placeholder_value_problem("checkpoint dir", "$(id)"));
  EXPECT_TRUE(placeholder_value_problem("checkpoint dir", "a b"));
}

TEST(Placeholders, FillingReplacesEveryOccurrence) {
  std::string run = bundled_run(testing::kBundledRecipes[1]);
  std::string filled = fill_placeholders(run, {{"slime-entry-module", "train_async"}});
  EXPECT_NE(filled.find("python3 -m train_async --async \\\n"), std::string::npos) << filled;
  EXPECT_TRUE(find_placeholders(filled).empty());
  EXPECT_EQ(fill_placeholders("a <x> <x>\n", {{"x", "b"}}), "a b b\n");
  EXPECT_EQ(fill_placeholders("a <x>\n", {{"y", "b"}}), "a <x>\n");
}

}  // namespace
}  // namespace openrecipes
