#include "rows/recipe_rows_check.h"

#include <gtest/gtest.h>

#include "rows/dataset_block.h"
#include "rows/rows_builder.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char* kRecipe = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";

struct Built {
  RowsBuildResult result;
  RowsFileSummary summary;
};

const Built& built() {
  static const Built built = [] {
    // One folder per test: ctest runs this file's tests in parallel processes, and a shared
    // folder would be wiped by the next one's fresh_dir while this one reads it.
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    RowsBuildOptions options = testing::fixture_rows_options(
        testing::fresh_dir("recipe_rows_check_" + test) + "/rows.parquet");
    Problems problems;
    std::optional<RowsBuildResult> result = build_rows(options, problems);
    EXPECT_TRUE(result) << testing::describe(problems);
    Built out{result.value_or(RowsBuildResult{}), {}};
    DuckDbSession duckdb;
    out.summary = read_rows_file(options.output, duckdb, problems).value_or(RowsFileSummary{});
    EXPECT_TRUE(problems.empty()) << testing::describe(problems);
    return out;
  }();
  return built;
}

// The bundled gpt-oss recipe with its rows_sha256 and build lines replaced by `block`.
std::string recipe_with_block(const std::string& block) {
  std::string text = testing::read_source_file(kRecipe);
  std::size_t begin = text.find("    rows_sha256:");
  std::size_t end = text.find("\nlayout:");
  return text.substr(0, begin) + block + text.substr(end + 1);
}

RecipeRowsCheck check_text(const std::string& text) {
  Problems problems;
  std::optional<YamlDocument> document = parse_yaml(text, "recipe.yaml", problems);
  EXPECT_TRUE(document) << testing::describe(problems);
  Problems schema = testing::bundled_catalog().recipe_schema.check(*document);
  EXPECT_TRUE(schema.empty()) << testing::describe(schema);
  return check_rows_against_recipe(built().summary, *document, recipe_from_yaml(document->root));
}

// The printed block pastes into a recipe, passes the schema and matches its own file; the only
// disagreement is workload.row_tokens, which the protocol fixes at 8,192 (the fixture uses 64).
// Matched: rows_sha256 and the 12 build fields.
TEST(RecipeRowsCheck, ThePrintedBlockMatchesItsOwnFile) {
  RecipeRowsCheck check = check_text(recipe_with_block(dataset_block_yaml(built().result)));
  ASSERT_EQ(check.problems.size(), 1u) << testing::describe(check.problems);
  EXPECT_EQ(check.problems[0].field, "workload.row_tokens");
  EXPECT_EQ(check.problems[0].expected, "64");
  EXPECT_EQ(check.problems[0].found, "8192");
  EXPECT_TRUE(check.unchecked.empty());
  EXPECT_EQ(check.matched.size(), 13u);
}

TEST(RecipeRowsCheck, EachDisagreementNamesTheRecipeLineAndField) {
  std::string block = dataset_block_yaml(built().result);
  block = testing::replace_all(block, "      rows: 12\n", "      rows: 13\n");
  block = testing::replace_all(block, "      seed: 42\n", "      seed: 7\n");
  block = testing::replace_all(block, "    rows_sha256: " + built().result.rows_sha256,
                               "    rows_sha256: " + std::string(64, 'a'));
  RecipeRowsCheck check = check_text(recipe_with_block(block));
  std::vector<std::string> lines;
  for (const Problem& problem : check.problems) lines.push_back(format_problem_line(problem));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "recipe.yaml:28:3: workload.row_tokens: does not match the rows file "
                       "(expected 64, found 8192)",
                       "recipe.yaml:37:5: workload.dataset.rows_sha256: does not match the rows "
                       "file (expected " +
                           built().result.rows_sha256 + ", found " + std::string(64, 'a') + ")",
                       "recipe.yaml:42:7: workload.dataset.build.rows: does not match the rows "
                       "file (expected 12, found 13)",
                       "recipe.yaml:45:7: workload.dataset.build.seed: does not match the rows "
                       "file (expected 42, found 7)",
                   }));
}

// The bundled recipe names the real gpt-oss rows; the fixture's rows are not those.
TEST(RecipeRowsCheck, TheBundledRecipeDoesNotMatchOtherRows) {
  RecipeRowsCheck check = check_text(testing::read_source_file(kRecipe));
  std::vector<std::string> fields;
  for (const Problem& problem : check.problems) fields.push_back(problem.field);
  EXPECT_EQ(fields, (std::vector<std::string>{
                        "workload.row_tokens", "workload.dataset.rows_sha256",
                        "workload.dataset.build.name", "workload.dataset.build.rows",
                        "workload.dataset.build.row_tokens", "workload.dataset.build.packing",
                        "workload.dataset.build.supervised_token_ratio",
                        "workload.dataset.build.parquet_sha256",
                        "workload.dataset.build.parquet_bytes", "workload.dataset.build.builder"}));
  // Same tokenizer, loss mask and seed as the recipe's rows.
  EXPECT_NE(
      std::find(check.matched.begin(), check.matched.end(), "workload.dataset.build.tokenizer"),
      check.matched.end());
}

}  // namespace
}  // namespace openrecipes
