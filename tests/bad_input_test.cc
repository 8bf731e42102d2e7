// One fixture per kind of bad input: each gets a clear problem with a position, never a crash,
// a hang or an exception.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "rows/duckdb_session.h"
#include "rows/rows_builder.h"
#include "rows/rows_file.h"
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
  std::string path = testing::test_temp_dir() + "/huge.yaml";
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

// --- Bad input that once ended as "internal error": each is now a problem naming the file, the
// field and what was expected and found, exit 1 (issue 18).

// Writes `text` to `name` in a fresh folder `folder` of the test temp directory; returns the path.
std::string write_temp(const std::string& folder, const std::string& name,
                       const std::string& text) {
  std::string path = testing::fresh_dir(folder) + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The binary's standard output and error together, and its exit code.
testing::ShellRun run_all(const std::string& arguments) {
  return testing::run_binary(arguments, source_dir(), "2>&1");
}

// A config.json whose number is past a double (1e309): nlohmann::json throws out_of_range, not
// parse_error, and every command that reads a config once printed an internal error.
TEST(BadInput, ANumberPastADoubleInAConfigIsNamedByEveryCommand) {
  const char* kConfig = "models/gpt-oss-20b/config.json";
  std::string config =
      write_temp("huge_number_config", "config.json",
                 testing::replace_all(testing::read_source_file(kConfig), "\"hidden_size\": 2880",
                                      "\"hidden_size\": 1e309"));
  std::string where = fmt::format("{}:{}:18: hidden_size: number out of range", config,
                                  testing::line_containing(kConfig, "\"hidden_size\""));
  for (const std::string& command :
       {"active-params " + config, "plan --model " + config + " --gpu H200 --gpus 8",
        "recommend --model " + config + " --gpu H200 --gpus 8",
        "export --model " + config + " --gpu H200 --gpus 8 --layout TP1 --to slime"}) {
    testing::ShellRun result = run_all(command);
    EXPECT_EQ(result.exit_code, 1) << command << "\n" << result.output;
    EXPECT_NE(result.output.find(where), std::string::npos) << command << "\n" << result.output;
    EXPECT_NE(result.output.find("found 1e309"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
  }
}

TEST(BadInput, ANumberPastADoubleInACatalogModelsConfigStopsBuild) {
  namespace fs = std::filesystem;
  fs::path root = testing::fresh_dir("huge_number_catalog");
  for (const char* entry : {"models.yaml", "gpus.yaml", "authors.yaml", "site.yaml", "schema",
                            "patches", "templates", "models", "recipes", "rules", "data"}) {
    fs::path from = fs::path(source_dir()) / entry;
    if (fs::exists(from)) fs::copy(from, root / entry, fs::copy_options::recursive);
  }
  fs::path config = root / "models/gpt-oss-20b/config.json";
  std::ofstream(config, std::ios::binary)
      << testing::replace_all(testing::read_source_file("models/gpt-oss-20b/config.json"),
                              "\"num_hidden_layers\": 24", "\"num_hidden_layers\": 2e400");
  fs::path out = fs::path(testing::fresh_dir("huge_number_site")) / "site";
  testing::ShellRun result =
      run_all(fmt::format("--root {} build --out {}", root.string(), out.string()));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("config.json"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("num_hidden_layers: number out of range"), std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(out));
  // The catalog's own files are shown as its recipes are, relative to where the command runs
  // (they used to be shown by their full path).
  testing::ShellRun inside = testing::run_binary("validate", root.string(), "2>&1");
  EXPECT_EQ(inside.exit_code, 1) << inside.output;
  EXPECT_EQ(inside.output.rfind("models/gpt-oss-20b/config.json:", 0), 0u) << inside.output;
  EXPECT_EQ(inside.output.find(root.string()), std::string::npos) << inside.output;
}

TEST(BadInput, ANumberPastADoubleInGoldenValuesOrAConversationIsNamed) {
  const char* kGolden =
      "tests/fixtures/logs/megatron_lm_gpt_oss_20b_reference_arm_golden_values.json";
  std::string golden = write_temp(
      "huge_number_golden", "golden_values.json",
      testing::replace_all(testing::read_source_file(kGolden), "\"5\": 1.15102", "\"5\": 1e999"));
  testing::ShellRun converge = run_all(
      "converge " + golden + " tests/fixtures/logs/megatron_lm_gpt_oss_20b_reference_arm.log");
  EXPECT_EQ(converge.exit_code, 1) << converge.output;
  EXPECT_NE(converge.output.find(
                golden + ":" + std::to_string(testing::line_containing(kGolden, "\"5\": 1.15102")) +
                ": lm loss.values.5: number out of range"),
            std::string::npos)
      << converge.output;
  EXPECT_EQ(converge.output.find("internal error"), std::string::npos) << converge.output;

  const char* kConversation = "tests/fixtures/conversations/two_turns.json";
  std::string edited = testing::replace_all(testing::read_source_file(kConversation),
                                            "\"content\": \"4\"", "\"content\": -1e400");
  std::string conversation = write_temp("huge_number_conversation", "conversation.json", edited);
  std::size_t at = edited.find("-1e400");
  int column = static_cast<int>(at - edited.rfind('\n', at));
  testing::ShellRun render =
      run_all("render --loss-mask qwen3 --tokenizer " +
              testing::npm_tokenizer_path("tokenizer-qwen3") + " " + conversation);
  EXPECT_EQ(render.exit_code, 1) << render.output;
  EXPECT_NE(
      render.output.find(fmt::format("{}:{}:{}: [2].content: number out of range", conversation,
                                     testing::line_containing(kConversation, "\"4\""), column)),
      std::string::npos)
      << render.output;
}

// The Qwen3 tokenizer.json with `edit` applied to its parsed JSON, written to a temp file.
std::string edited_qwen3_tokenizer(const std::string& name,
                                   const std::function<void(nlohmann::json&)>& edit) {
  static const nlohmann::json qwen3 = nlohmann::json::parse(
      std::ifstream(testing::npm_tokenizer_path("tokenizer-qwen3"), std::ios::binary));
  nlohmann::json copy = qwen3;
  edit(copy);
  return write_temp("tokenizer_" + name, "tokenizer.json", copy.dump());
}

struct BadPattern {
  std::string name;
  std::string pattern;
  std::string text;   // what to encode
  std::string limit;  // PCRE2's words for the limit it reaches
};

void PrintTo(const BadPattern& c, std::ostream* os) { *os << c.name; }

class BadPatternTest : public ::testing::TestWithParam<BadPattern> {};

// A pattern PCRE2 gives up on shows only when matching: encode throws InputError, which the CLI
// prints as the tokenizer file's problem, as text and as JSON, exit 1.
TEST_P(BadPatternTest, IsTheTokenizerFilesProblem) {
  const BadPattern& c = GetParam();
  std::string path = edited_qwen3_tokenizer(c.name, [&](nlohmann::json& doc) {
    doc["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = c.pattern;
  });
  testing::ShellRun text = testing::run_binary("tokenize --tokenizer " + path + " '" + c.text + "'",
                                               source_dir(), "2>&1 >/dev/null");
  EXPECT_EQ(text.exit_code, 1) << text.output;
  EXPECT_EQ(text.output.rfind(path +
                                  ": pre_tokenizer[0].pattern: the pattern is too complex "
                                  "to match: PCRE2 " +
                                  c.limit,
                              0),
            0u)
      << text.output;
  EXPECT_NE(text.output.find("found /" + c.pattern + "/"), std::string::npos) << text.output;
  testing::ShellRun json =
      testing::run_binary("tokenize --format json --tokenizer " + path + " '" + c.text + "'",
                          source_dir(), "2>&1 >/dev/null");
  EXPECT_EQ(json.exit_code, 1);
  nlohmann::json problems = nlohmann::json::parse(json.output, nullptr, false);
  ASSERT_TRUE(problems.is_array() && problems.size() == 1) << json.output;
  EXPECT_EQ(problems[0]["file"], path);
  EXPECT_EQ(problems[0]["field"], "pre_tokenizer[0].pattern");
  EXPECT_EQ(problems[0]["found"], "/" + c.pattern + "/");
}

INSTANTIATE_TEST_SUITE_P(Pathological, BadPatternTest,
                         ::testing::Values(BadPattern{"backtracking", "(a+)+$",
                                                      std::string(40, 'a') + "b",
                                                      "match limit exceeded"},
                                           BadPattern{"recursion", "(?R)?a", std::string(40, 'a'),
                                                      "JIT stack limit reached"}),
                         [](const auto& test) { return test.param.name; });

TEST(BadInput, APatternThatDoesNotCompileNamesItsFieldAndPattern) {
  std::string path = edited_qwen3_tokenizer("uncompilable", [](nlohmann::json& doc) {
    doc["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(a";
  });
  testing::ShellRun result = run_all("tokenize --tokenizer " + path + " abc");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(result.output.rfind(path + ": pre_tokenizer[0].pattern: the regex does not compile", 0),
            0u)
      << result.output;
  EXPECT_NE(result.output.find("(found /(a/)"), std::string::npos) << result.output;
}

struct WrongType {
  std::string name;
  std::function<void(nlohmann::json&)> edit;
  std::string problem;  // the line printed after "FILE: "
};

void PrintTo(const WrongType& c, std::ostream* os) { *os << c.name; }

class WrongTypeTest : public ::testing::TestWithParam<WrongType> {};

TEST_P(WrongTypeTest, NamesTheFieldAndWhatItHolds) {
  const WrongType& c = GetParam();
  std::string path = edited_qwen3_tokenizer(c.name, c.edit);
  testing::ShellRun result = run_all("tokenize --tokenizer " + path + " abc");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(result.output, path + ": " + c.problem + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Tokenizer, WrongTypeTest,
    ::testing::Values(
        WrongType{
            "invert",
            [](nlohmann::json& doc) { doc["pre_tokenizer"]["pretokenizers"][0]["invert"] = 1000; },
            "pre_tokenizer[0].invert: wrong type (expected true or false, found the number "
            "1000)"},
        WrongType{"model_type", [](nlohmann::json& doc) { doc["model"]["type"] = nullptr; },
                  "model.type: wrong type (expected a string, found null)"},
        WrongType{
            "behavior",
            [](nlohmann::json& doc) { doc["pre_tokenizer"]["pretokenizers"][0]["behavior"] = 3; },
            "pre_tokenizer[0].behavior: wrong type (expected a string, found the number 3)"},
        WrongType{"pattern",
                  [](nlohmann::json& doc) {
                    doc["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"Regex", true}};
                  },
                  "pre_tokenizer[0].pattern.Regex: wrong type (expected a string, found a boolean "
                  "true)"},
        WrongType{"use_regex",
                  [](nlohmann::json& doc) {
                    doc["pre_tokenizer"]["pretokenizers"][1]["use_regex"] = "no";
                  },
                  "pre_tokenizer[1].use_regex: wrong type (expected true or false, found the "
                  "string \"no\")"},
        WrongType{"special", [](nlohmann::json& doc) { doc["added_tokens"][0]["special"] = "yes"; },
                  "added_tokens[0].special: wrong type (expected true or false, found the string "
                  "\"yes\")"},
        WrongType{"ignore_merges", [](nlohmann::json& doc) { doc["model"]["ignore_merges"] = 0; },
                  "model.ignore_merges: wrong type (expected true or false, found the number 0)"},
        WrongType{"normalizer_type",
                  [](nlohmann::json& doc) {
                    doc["normalizer"] = {{"type", 7}};
                  },
                  "normalizer.type: wrong type (expected a string, found the number 7)"}),
    [](const auto& test) { return test.param.name; });

// A rows file's own metadata may hold any JSON type under a key `rows verify` prints: a name,
// loss mask, seed or tokenizer hash that is not a string once ended in a JSON type error.
TEST(BadInput, RowsMetadataOfOtherTypesIsPrintedNotThrown) {
  RowsBuildOptions options;
  options.inputs = {source_dir() + "/tests/fixtures/rows/conversations.jsonl"};
  options.tokenizer_path = testing::npm_tokenizer_path("tokenizer-gptoss");
  options.rows = 12;
  options.row_tokens = 64;
  options.name = "fixture-rows";
  std::string dir = testing::fresh_dir("rows_metadata_types");
  options.output = dir + "/rows.parquet";
  Problems problems;
  std::optional<RowsBuildResult> built = build_rows(options, problems);
  ASSERT_TRUE(built) << describe(problems);
  nlohmann::json metadata = built->metadata();
  metadata["name"] = 5;
  metadata["loss_mask"] = nlohmann::json::array({1, 2});
  metadata["tokenizer_sha256"] = nullptr;
  const std::string odd = dir + "/odd.parquet";
  DuckDbSession duckdb;
  duckdb.execute("COPY (SELECT * FROM read_parquet(" + sql_string(options.output) + ")) TO " +
                 sql_string(odd) + " (FORMAT parquet, KV_METADATA {'" + kRowsMetadataKey +
                 "': " + sql_string(metadata.dump()) + "})");
  testing::ShellRun result = run_all("rows verify '" + odd + "'");
  EXPECT_NE(result.exit_code, 3) << result.output;
  EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("5 (loss mask [1,2], seed"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("tokenizer.json sha256   null"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace openrecipes
