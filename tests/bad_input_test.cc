// One fixture per kind of bad input: each gets a clear problem with a position, never a crash,
// a hang or an exception.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::bundled_catalog;
using testing::describe;
using testing::source_dir;

struct BadInput {
  std::string fixture;
  std::string field;    // of the first problem; "" for the file as a whole
  std::string message;  // a part of the first problem's message
  int line;
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.fixture; }

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, IsReportedWithItsPosition) {
  const BadInput& c = GetParam();
  std::string path = source_dir() + "/tests/fixtures/bad/" + c.fixture;
  RecipeReport report = validate_recipe_file(bundled_catalog(), path);
  ASSERT_FALSE(report.problems.empty());
  EXPECT_FALSE(report.recipe.has_value());
  const Problem* match = nullptr;
  for (const Problem& problem : report.problems) {
    EXPECT_EQ(problem.file, path);
    EXPECT_GT(problem.position.line, 0);
    if (!match && problem.field == c.field) match = &problem;
  }
  ASSERT_NE(match, nullptr) << "no problem for '" << c.field << "'\n" << describe(report.problems);
  EXPECT_NE(match->message.find(c.message), std::string::npos) << describe(report.problems);
  EXPECT_EQ(match->position.line, c.line) << describe(report.problems);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BadInputTest,
    ::testing::Values(BadInput{"malformed.yaml", "", "YAML syntax error", 4},
                      BadInput{"wrong_types.yaml", "gpu.count", "wrong type", 6},
                      BadInput{"missing_fields.yaml", "gpu.count", "missing required field", 3},
                      BadInput{"unknown_fields.yaml", "gpu.interconnect", "unknown field", 9},
                      BadInput{"duplicate_keys.yaml", "gpu.count", "duplicate key 'count'", 7},
                      BadInput{"alias_bomb.yaml", "a", "anchors", 2},
                      BadInput{"not_utf8.yaml", "", "not valid UTF-8: byte offset 51", 4},
                      BadInput{"empty.yaml", "", "empty", 1},
                      BadInput{"only_comment.yaml", "", "no YAML document", 1},
                      BadInput{"two_documents.yaml", "", "more than one YAML document", 2},
                      BadInput{"not_a_mapping.yaml", "", "wrong type", 1}),
    [](const auto& test) {
      std::string name = test.param.fixture.substr(0, test.param.fixture.find('.'));
      return name;
    });

TEST(BadInput, HugeFileIsRefusedBeforeParsing) {
  std::string path = ::testing::TempDir() + "/huge.yaml";
  {
    std::ofstream out(path, std::ios::binary);
    std::string line = "# " + std::string(1022, 'x') + "\n";
    for (int i = 0; i < 2048; ++i) out << line;  // 2 MiB
  }
  RecipeReport report = validate_recipe_file(bundled_catalog(), path);
  ASSERT_EQ(report.problems.size(), 1u) << describe(report.problems);
  EXPECT_NE(report.problems[0].message.find("at most 1048576 bytes"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(BadInput, MissingFileIsAProblemNotAnException) {
  RecipeReport report = validate_recipe_file(bundled_catalog(), "no/such/recipe.yaml");
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].message, "no such file");
  EXPECT_EQ(report.problems[0].file, "no/such/recipe.yaml");
}

TEST(BadInput, RecipeWhosePathDisagreesWithItsContent) {
  // The gpt-oss recipe filed under the Qwen model's folder.
  std::string text = testing::read_source_file("recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml");
  Problems problems =
      testing::validate_as("recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp2-ep4.yaml", text);
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].rule, "path");
  EXPECT_EQ(problems[0].field, "model");
  EXPECT_EQ(problems[0].expected, "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4[-<variant>].yaml");
}

}  // namespace
}  // namespace openrecipes
