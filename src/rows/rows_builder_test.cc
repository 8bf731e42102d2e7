#include "rows/rows_builder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "rows/duckdb_session.h"
#include "rows/rows_file.h"
#include "rows/rows_hash.h"
#include "rows/seeded_shuffle.h"
#include "test_support.h"
#include "text/loss_mask.h"
#include "text/tokenizer.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

std::string fixture_jsonl() {
  return testing::source_dir() + "/tests/fixtures/rows/conversations.jsonl";
}

// The fixture's conversations as Parquet in the Tulu layout, written through DuckDB.
std::string write_parquet_copy(const std::string& dir) {
  std::string path = dir + "/conversations.parquet";
  DuckDbSession duckdb;
  duckdb.execute("COPY (SELECT * FROM read_json(" + sql_string(fixture_jsonl()) +
                 ", format = 'newline_delimited', columns = {id: 'VARCHAR', messages: "
                 "'STRUCT(role VARCHAR, content VARCHAR)[]', source: 'VARCHAR'})) TO " +
                 sql_string(path) + " (FORMAT parquet)");
  return path;
}

RowsBuildOptions small_build(const std::string& dir, const std::string& name = "rows.parquet") {
  RowsBuildOptions options;
  options.inputs = {fixture_jsonl()};
  options.tokenizer_path = testing::npm_tokenizer_path("tokenizer-gptoss");
  options.loss_mask = LossMaskType::kGptOss;
  options.rows = 20;
  options.row_tokens = 64;
  options.seed = 42;
  options.name = "fixture-rows";
  options.output = dir + "/" + name;
  return options;
}

// The build's result, failing the test (with the problems) when it does not build.
RowsBuildResult built_rows(const RowsBuildOptions& options) {
  Problems problems;
  std::optional<RowsBuildResult> result = build_rows(options, problems);
  EXPECT_TRUE(result) << render_problems(problems, OutputFormat::kText);
  return result.value_or(RowsBuildResult{});
}

// The problem that stops the build, as its line; "" when it builds.
std::string build_problem(const RowsBuildOptions& options) {
  Problems problems;
  std::optional<RowsBuildResult> result = build_rows(options, problems);
  EXPECT_EQ(result.has_value(), problems.empty());
  return problems.empty() ? "" : format_problem_line(problems.front());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RowsBuild, ParquetAndJsonlInputsGiveTheSameRows) {
  std::string dir = testing::fresh_dir("rows_formats");
  RowsBuildResult from_jsonl = built_rows(small_build(dir, "a.parquet"));
  RowsBuildOptions options = small_build(dir, "b.parquet");
  options.inputs = {write_parquet_copy(dir)};
  RowsBuildResult from_parquet = built_rows(options);
  EXPECT_EQ(from_jsonl.rows, 20);
  EXPECT_EQ(from_jsonl.rows_sha256, from_parquet.rows_sha256);
  EXPECT_EQ(from_jsonl.conversations_used, from_parquet.conversations_used);
  EXPECT_EQ(from_jsonl.conversations_available, 24u);
}

TEST(RowsBuild, TheSameSeedGivesTheSameBytesWhateverTheThreadCount) {
  std::string dir = testing::fresh_dir("rows_deterministic");
  RowsBuildOptions one = small_build(dir, "one.parquet");
  one.threads = 1;
  RowsBuildOptions two = small_build(dir, "two.parquet");
  two.threads = 2;
  RowsBuildResult a = built_rows(one);
  RowsBuildResult b = built_rows(two);
  EXPECT_EQ(a.rows_sha256, b.rows_sha256);
  EXPECT_EQ(a.parquet_sha256, b.parquet_sha256);
  EXPECT_EQ(read_file(one.output), read_file(two.output));
}

TEST(RowsBuild, ADifferentSeedChangesTheRows) {
  std::string dir = testing::fresh_dir("rows_seed");
  RowsBuildOptions other = small_build(dir, "other.parquet");
  other.seed = 43;
  EXPECT_NE(built_rows(small_build(dir)).rows_sha256, built_rows(other).rows_sha256);
}

// The rows equal an independent packing of the conversations rendered one by one: permutation
// order, EOS after each, cut every 64 tokens, unsupervised rows dropped.
TEST(RowsBuild, RowsAreTheRenderedConversationsPackedAsDocumented) {
  std::string dir = testing::fresh_dir("rows_reference");
  RowsBuildOptions options = small_build(dir);
  options.row_tokens = 16;  // small enough that the long prompts fill whole unsupervised rows
  options.rows = 45;
  RowsBuildResult result = built_rows(options);

  Problems load_problems;
  auto tokenizer = Tokenizer::load(options.tokenizer_path, load_problems);
  EXPECT_TRUE(tokenizer) << testing::describe(load_problems);
  std::vector<nlohmann::ordered_json> lines;
  std::ifstream in(fixture_jsonl());
  for (std::string line; std::getline(in, line);)
    lines.push_back(nlohmann::ordered_json::parse(line));
  std::int32_t eos = *tokenizer->added_token_id("<|return|>");
  std::vector<std::int32_t> ids;
  std::vector<std::uint8_t> mask;
  EncodeCache cache;
  for (std::uint32_t index : seeded_permutation(static_cast<std::uint32_t>(lines.size()), 42)) {
    Problems problems;
    std::optional<Conversation> conversation =
        conversation_from_json(lines[index], "lines", problems);
    ASSERT_TRUE(conversation) << testing::describe(problems);
    std::optional<MaskedTokens> masked =
        tokenize_chat(*tokenizer, *conversation, LossMaskType::kGptOss, cache, problems);
    ASSERT_TRUE(masked) << testing::describe(problems);
    const MaskedTokens& tokens = *masked;
    ids.insert(ids.end(), tokens.ids.begin(), tokens.ids.end());
    mask.insert(mask.end(), tokens.mask.begin(), tokens.mask.end());
    ids.push_back(eos);
    mask.push_back(0);
  }
  std::string bytes;
  int kept = 0, skipped = 0;
  for (std::size_t start = 0; start + 16 <= ids.size() && kept < 45; start += 16) {
    int supervised = 0;
    for (std::size_t k = start; k < start + 16; ++k) supervised += mask[k];
    if (supervised == 0) {
      ++skipped;
      continue;
    }
    for (std::size_t k = start; k < start + 16; ++k) {
      for (int b = 0; b < 4; ++b)
        bytes += static_cast<char>((static_cast<std::uint32_t>(ids[k]) >> (8 * b)) & 0xff);
    }
    for (std::size_t k = start; k < start + 16; ++k) bytes += static_cast<char>(mask[k]);
    ++kept;
  }
  ASSERT_EQ(kept, 45);
  EXPECT_GT(skipped, 0);
  EXPECT_EQ(result.skipped_rows, skipped);
  EXPECT_EQ(result.rows_sha256, sha256_hex(bytes));
  EXPECT_EQ(result.eos_token, "<|return|>");
}

TEST(RowsBuild, TheFileReadsBackToTheBuildsFigures) {
  std::string dir = testing::fresh_dir("rows_readback");
  RowsBuildResult result = built_rows(small_build(dir));
  DuckDbSession duckdb;
  Problems problems;
  std::optional<RowsFileSummary> read = read_rows_file(result.output, duckdb, problems);
  ASSERT_TRUE(read) << testing::describe(problems);
  const RowsFileSummary& summary = *read;
  EXPECT_TRUE(summary.problems.empty()) << testing::describe(summary.problems);
  EXPECT_EQ(summary.rows, result.rows);
  EXPECT_EQ(summary.row_tokens, 64);
  EXPECT_EQ(summary.padding_tokens, 0);
  EXPECT_EQ(summary.supervised_tokens, result.supervised_tokens);
  EXPECT_DOUBLE_EQ(summary.supervised_token_ratio, result.supervised_token_ratio);
  EXPECT_EQ(summary.rows_sha256, result.rows_sha256);
  EXPECT_EQ(summary.parquet_sha256, result.parquet_sha256);
  EXPECT_EQ(summary.parquet_bytes, result.parquet_bytes);
  EXPECT_EQ(summary.build.value("name", ""), "fixture-rows");
  EXPECT_EQ(summary.build.value("tokenizer_sha256", ""), result.tokenizer_sha256);
}

TEST(RowsBuild, RunningOutOfConversationsFailsAndWritesNothing) {
  std::string dir = testing::fresh_dir("rows_run_out");
  RowsBuildOptions options = small_build(dir);
  options.rows = 100000;
  std::string ran_out = build_problem(options);
  EXPECT_NE(ran_out.find("ran out"), std::string::npos) << ran_out;
  EXPECT_TRUE(fs::is_empty(dir));
}

// Builds from `lines` written as a JSONL input; returns the error message ("" on success).
std::string build_error(const std::string& dir, const std::string& lines,
                        RowsBuildOptions options) {
  std::ofstream(dir + "/input.jsonl") << lines;
  options.inputs = {dir + "/input.jsonl"};
  return build_problem(options);
}

TEST(RowsBuild, BadInputsAreNamedByFileLineAndField) {
  std::string dir = testing::fresh_dir("rows_bad_inputs");
  RowsBuildOptions options = small_build(dir);
  options.rows = 1;
  std::string good = read_file(fixture_jsonl());
  std::string input = dir + "/input.jsonl";
  EXPECT_NE(build_error(dir, "{\"id\": \"x\", \"messages\": [\n", options)
                .find(input + ":1: not valid JSON"),
            std::string::npos);
  EXPECT_NE(
      build_error(dir,
                  "\n{\"id\": \"x\", \"messages\": [{\"role\": \"robot\", \"content\": \"hi\"}]}\n",
                  options)
          .find(input + ":2: messages[0].role: unknown role 'robot'"),
      std::string::npos);
  EXPECT_NE(build_error(dir, "[1, 2]\n", options).find(input + ":1: expected an object"),
            std::string::npos)
      << build_error(dir, "[1, 2]\n", options);
  EXPECT_NE(build_error(dir, "{\"id\": \"x\"}\n", options).find(input + ":1: messages: missing"),
            std::string::npos)
      << build_error(dir, "{\"id\": \"x\"}\n", options);
  EXPECT_NE(build_error(dir, "\n \n", options).find("no conversations"), std::string::npos)
      << build_error(dir, "\n \n", options);

  options.inputs = {dir + "/missing.jsonl"};
  std::string missing = build_problem(options);
  EXPECT_NE(missing.find("missing.jsonl: no such file"), std::string::npos) << missing;
  options.inputs = {fixture_jsonl() + ".txt"};
  EXPECT_NE(build_problem(options), "");
}

TEST(RowsBuild, ParquetOfTheWrongLayoutIsRefusedByColumn) {
  std::string dir = testing::fresh_dir("rows_bad_parquet");
  DuckDbSession duckdb;
  std::string wrong = dir + "/wrong.parquet";
  duckdb.execute("COPY (SELECT 'x' AS id, 'hello' AS messages) TO " + sql_string(wrong) +
                 " (FORMAT parquet)");
  std::string no_messages = dir + "/no_messages.parquet";
  duckdb.execute("COPY (SELECT 'x' AS id) TO " + sql_string(no_messages) + " (FORMAT parquet)");
  std::string not_parquet = dir + "/text.parquet";
  std::ofstream(not_parquet) << "not parquet";
  RowsBuildOptions options = small_build(dir);
  for (const auto& [path, expected] : std::vector<std::pair<std::string, std::string>>{
           {wrong,
            "messages: expected a list of STRUCT(role VARCHAR, content VARCHAR), found VARCHAR"},
           {no_messages, "no column 'messages'"},
           {not_parquet, "not a readable Parquet file"},
           // A footer whose counts exceed its bytes (rows/parquet_footer.h), not read by DuckDB.
           {testing::source_dir() + "/fuzz/corpus/rows_file/oom-footer-column-count.parquet",
            "not a readable Parquet file (its 1577-byte Parquet footer declares a list of"}}) {
    options.inputs = {path};
    std::string error = build_problem(options);
    EXPECT_NE(error.find(path + ": " + expected), std::string::npos) << error;
  }
}

TEST(RowsBuild, AFailedBuildLeavesTheOldFileAndNoTemporaryFile) {
  std::string dir = testing::fresh_dir("rows_atomic");
  RowsBuildOptions options = small_build(dir);
  std::ofstream(options.output) << "the previous rows";
  options.rows = 100000;
  EXPECT_NE(build_problem(options), "");
  EXPECT_EQ(read_file(options.output), "the previous rows");
  options.rows = 5;
  options.inputs = {options.output};  // the output may not be an input
  EXPECT_NE(build_problem(options), "");
  EXPECT_EQ(read_file(options.output), "the previous rows");
  options.inputs = {fixture_jsonl()};
  options.output = dir + "/no-such-folder/rows.parquet";
  EXPECT_NE(build_problem(options), "");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

// The build replaces its output path; it will not replace what is not a plain file of its own.
TEST(RowsBuild, TheOutputMustBeANewOrRegularFileNotAnInput) {
  std::string dir = testing::fresh_dir("rows_output_kinds");
  RowsBuildOptions options = small_build(dir);
  auto error_for = [&](const std::string& output) -> std::string {
    RowsBuildOptions o = options;
    o.output = output;
    return build_problem(o);
  };
  std::string target = dir + "/target.parquet";
  std::ofstream(target) << "someone else's file";
  fs::create_symlink(target, dir + "/link.parquet");
  EXPECT_NE(error_for(dir + "/link.parquet").find("is a symbolic link"), std::string::npos);
  ASSERT_EQ(mkfifo((dir + "/fifo.parquet").c_str(), 0600), 0);
  EXPECT_NE(error_for(dir + "/fifo.parquet").find("is not a regular file"), std::string::npos);
  EXPECT_NE(error_for(options.tokenizer_path).find("is also a file the build reads"),
            std::string::npos);
  EXPECT_NE(error_for(fixture_jsonl()).find("is also a file the build reads"), std::string::npos);
  EXPECT_EQ(read_file(target), "someone else's file");

  options.inputs = {fixture_jsonl(), fixture_jsonl()};
  EXPECT_NE(error_for(dir + "/rows.parquet").find("given twice"), std::string::npos);
  options.inputs = {fixture_jsonl()};
  options.name = "bad\xff";
  EXPECT_NE(error_for(dir + "/rows.parquet").find("--name: not valid UTF-8 at byte 3"),
            std::string::npos);
}

TEST(RowsBuild, TheEosTokenComesFromTheTokenizerConfigOrTheOption) {
  std::string dir = testing::fresh_dir("rows_eos");
  RowsBuildOptions options = small_build(dir);
  options.eos_token = "<|endoftext|>";
  RowsBuildResult result = built_rows(options);
  EXPECT_EQ(result.eos_token, "<|endoftext|>");
  EXPECT_NE(result.rows_sha256, built_rows(small_build(dir, "default.parquet")).rows_sha256);
  options.eos_token = "not-a-token";
  EXPECT_NE(build_problem(options), "");
  // A tokenizer.json without tokenizer_config.json beside it needs --eos.
  fs::copy_file(options.tokenizer_path, dir + "/tokenizer.json");
  options.tokenizer_path = dir + "/tokenizer.json";
  options.eos_token = "";
  std::string no_eos = build_problem(options);
  EXPECT_NE(no_eos.find("--eos"), std::string::npos) << no_eos;
}

TEST(RowsBuild, AQwenTokenizerCannotBuildGptOssRows) {
  std::string dir = testing::fresh_dir("rows_wrong_tokenizer");
  RowsBuildOptions options = small_build(dir);
  options.tokenizer_path = testing::npm_tokenizer_path("tokenizer-qwen3");
  EXPECT_NE(build_problem(options), "");
  options.loss_mask = LossMaskType::kQwen35;
  options.rows = 10;
  RowsBuildResult result = built_rows(options);
  EXPECT_EQ(result.eos_token, "<|im_end|>");
  EXPECT_EQ(result.loss_mask, "qwen3_5");
}

}  // namespace
}  // namespace openrecipes
