#include "rows/rows_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rows/rows_builder.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// One small rows file built from the fixture conversations, shared by the tests.
const RowsBuildResult& built() {
  static const RowsBuildResult result = [] {
    RowsBuildOptions options;
    options.inputs = {testing::source_dir() + "/tests/fixtures/rows/conversations.jsonl"};
    options.tokenizer_path = testing::npm_tokenizer_path("tokenizer-gptoss");
    options.rows = 12;
    options.row_tokens = 64;
    options.name = "fixture-rows";
    options.output = testing::fresh_dir("rows_file_shared") + "/rows.parquet";
    Problems problems;
    std::optional<RowsBuildResult> built_rows = build_rows(options, problems);
    EXPECT_TRUE(built_rows) << testing::describe(problems);
    return built_rows.value_or(RowsBuildResult{});
  }();
  return result;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The problem that stops read_rows_file reading `path`, as its line; "" when it reads.
std::string read_error(const std::string& path) {
  DuckDbSession duckdb;
  Problems problems;
  std::optional<RowsFileSummary> summary = read_rows_file(path, duckdb, problems);
  EXPECT_EQ(summary.has_value(), problems.empty());
  return problems.empty() ? "" : format_problem_line(problems.front());
}

// The summary of `path`, failing the test (with the problems) when it does not read.
RowsFileSummary read_ok(const std::string& path, DuckDbSession& duckdb) {
  Problems problems;
  std::optional<RowsFileSummary> summary = read_rows_file(path, duckdb, problems);
  EXPECT_TRUE(summary) << testing::describe(problems);
  return summary.value_or(RowsFileSummary{});
}

TEST(RowsFile, ATruncatedFileIsRefusedNamingTheFile) {
  std::string dir = testing::fresh_dir("rows_file_truncated");
  std::string whole = bytes_of(built().output);
  for (std::size_t keep : {std::size_t{0}, std::size_t{3}, whole.size() / 2, whole.size() - 1}) {
    std::string path = dir + "/truncated.parquet";
    std::ofstream(path, std::ios::binary) << whole.substr(0, keep);
    std::string error = read_error(path);
    EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << keep << ": " << error;
  }
}

// Flipping bytes anywhere gives an error or a reported problem, never a crash or a silent pass.
TEST(RowsFile, CorruptBytesAreAnErrorOrAProblem) {
  std::string dir = testing::fresh_dir("rows_file_corrupt");
  std::string whole = bytes_of(built().output);
  for (std::size_t at = 4; at < whole.size() - 8; at += whole.size() / 37) {
    std::string corrupt = whole;
    for (std::size_t k = at; k < at + 8; ++k) corrupt[k] = static_cast<char>(corrupt[k] ^ 0x5a);
    std::string path = dir + "/corrupt.parquet";
    std::ofstream(path, std::ios::binary) << corrupt;
    DuckDbSession duckdb;
    Problems problems;
    std::optional<RowsFileSummary> summary = read_rows_file(path, duckdb, problems);
    if (!summary) {
      // Unreadable: one problem naming the file.
      ASSERT_EQ(problems.size(), 1u) << "byte " << at;
      EXPECT_EQ(problems[0].file, path);
      continue;
    }
    // Bytes outside the data (statistics, metadata text) may change without changing the rows.
    bool same = summary->rows_sha256 == built().rows_sha256;
    EXPECT_TRUE(!summary->problems.empty() || same)
        << "byte " << at << " changed the rows silently";
  }
}

TEST(RowsFile, AFileOfAnotherLayoutIsRefusedByColumn) {
  std::string dir = testing::fresh_dir("rows_file_layout");
  DuckDbSession duckdb;
  std::string strings = dir + "/strings.parquet";
  duckdb.execute(
      "COPY (SELECT 0 :: INTEGER AS row, ['1', '2'] AS input_ids, [1 :: UTINYINT, 0] AS loss_mask) "
      "TO " +
      sql_string(strings) + " (FORMAT parquet)");
  EXPECT_EQ(
      read_error(strings),
      strings + ": input_ids: column of the wrong type (expected INTEGER[], found VARCHAR[])");
  std::string missing = dir + "/missing.parquet";
  duckdb.execute("COPY (SELECT 0 :: INTEGER AS row, [1, 2] AS input_ids) TO " +
                 sql_string(missing) + " (FORMAT parquet)");
  EXPECT_NE(read_error(missing).find(missing + ": loss_mask: no column 'loss_mask'"),
            std::string::npos);
  std::string no_stream = dir + "/no_stream.parquet";
  duckdb.execute("COPY (SELECT * EXCLUDE (stream_row) FROM read_parquet(" +
                 sql_string(built().output) + ")) TO " + sql_string(no_stream) +
                 " (FORMAT parquet)");
  EXPECT_NE(read_error(no_stream).find("no column 'stream_row'"), std::string::npos);
  std::string shifted = dir + "/shifted.parquet";
  duckdb.execute(
      "COPY (SELECT * REPLACE (CASE WHEN row = 2 THEN 0 ELSE stream_row END AS stream_row) FROM "
      "read_parquet(" +
      sql_string(built().output) + ")) TO " + sql_string(shifted) + " (FORMAT parquet)");
  RowsFileSummary shifted_summary = read_ok(shifted, duckdb);
  ASSERT_FALSE(shifted_summary.problems.empty());
  EXPECT_EQ(shifted_summary.problems[0].field, "stream_row");
  std::string text = dir + "/text.parquet";
  std::ofstream(text) << "row,input_ids\n";
  EXPECT_NE(read_error(text).find(text + ": not a readable rows file"), std::string::npos)
      << read_error(text);
  EXPECT_EQ(read_error(dir + "/absent.parquet"), dir + "/absent.parquet: no such file");
  EXPECT_EQ(read_error(dir), dir + ": not a regular file");
}

// Rows rewritten by another tool keep their metadata but no longer match it.
TEST(RowsFile, EditedRowsDisagreeWithTheirMetadata) {
  std::string dir = testing::fresh_dir("rows_file_edited");
  std::string edited = dir + "/edited.parquet";
  DuckDbSession duckdb;
  duckdb.execute(
      "COPY (SELECT * REPLACE (CASE WHEN row = 3 THEN list_reverse(input_ids) ELSE input_ids END "
      "AS input_ids, "
      "CASE WHEN row = 5 THEN [2 :: UTINYINT] || loss_mask[2:] ELSE loss_mask END AS loss_mask) "
      "FROM read_parquet(" +
      sql_string(built().output) + ")) TO " + sql_string(edited) +
      " (FORMAT parquet, KV_METADATA {'" + kRowsMetadataKey +
      "': " + sql_string(built().metadata().dump()) + "})");
  RowsFileSummary summary = read_ok(edited, duckdb);
  std::vector<std::string> fields;
  for (const Problem& problem : summary.problems) fields.push_back(problem.field);
  EXPECT_EQ(fields, (std::vector<std::string>{"loss_mask", "metadata.rows_sha256"}))
      << testing::describe(summary.problems);
  EXPECT_NE(summary.rows_sha256, built().rows_sha256);
}

// A corrupt Parquet file (a page's bytes flipped, or the footer cut) is one Problem naming the
// file, and where the reader can tell, the column.
TEST(RowsFile, ACorruptFileIsAProblemNamingTheFile) {
  std::string dir = testing::fresh_dir("rows_file_corrupt_problem");
  std::string path = dir + "/cut.parquet";
  std::string whole = bytes_of(built().output);
  std::ofstream(path, std::ios::binary) << whole.substr(0, whole.size() - 16);
  DuckDbSession duckdb;
  Problems problems;
  EXPECT_FALSE(read_rows_file(path, duckdb, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, path);
  EXPECT_EQ(problems[0].rule, "rows.file");
  EXPECT_NE(problems[0].message.find("not a readable rows file"), std::string::npos)
      << problems[0].message;
  // A wrong-typed column names the column as the field, with what was expected and found.
  // (From a copy: tests run in parallel processes rebuild the shared file.)
  std::string copy = dir + "/copy.parquet";
  std::ofstream(copy, std::ios::binary) << whole;
  std::string typed = dir + "/typed.parquet";
  duckdb.execute(
      "COPY (SELECT * REPLACE (CAST(stream_row AS BIGINT) AS stream_row) FROM read_parquet(" +
      sql_string(copy) + ")) TO " + sql_string(typed) + " (FORMAT parquet)");
  problems.clear();
  EXPECT_FALSE(read_rows_file(typed, duckdb, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "stream_row");
  EXPECT_EQ(problems[0].expected, "INTEGER");
  EXPECT_EQ(problems[0].found, "BIGINT");
}

TEST(RowsFile, ShortRowsCountAsPaddingAndRowsWithoutTargetsAreProblems) {
  std::string dir = testing::fresh_dir("rows_file_padding");
  std::string path = dir + "/padded.parquet";
  DuckDbSession duckdb;
  duckdb.execute(
      "COPY (SELECT *, ['c'] AS conversation_ids, 0 AS first_token_offset, row AS stream_row FROM "
      "(VALUES "
      "(0, [5, 6, 7], [0 :: UTINYINT, 1, 1]), (1, [8], [0 :: UTINYINT])) AS t(row, input_ids, "
      "loss_mask)) TO " +
      sql_string(path) + " (FORMAT parquet)");
  RowsFileSummary summary = read_ok(path, duckdb);
  EXPECT_EQ(summary.rows, 2);
  EXPECT_EQ(summary.row_tokens, 3);
  EXPECT_EQ(summary.padding_tokens, 2);
  EXPECT_EQ(summary.supervised_tokens, 2);
  EXPECT_TRUE(summary.build.is_null());
  ASSERT_EQ(summary.problems.size(), 2u) << testing::describe(summary.problems);
  EXPECT_NE(summary.problems[0].message.find("row 1: no supervised token"), std::string::npos);
  EXPECT_NE(summary.problems[1].message.find("row 1: 1 tokens where the longest row has 3"),
            std::string::npos);
}

}  // namespace
}  // namespace openrecipes

namespace openrecipes {
namespace {

// Rows with build metadata that is not an object, or that states other counts than the rows hold.
TEST(RowsFile, MetadataThatIsNotAnObjectOrStatesOtherCountsIsAProblem) {
  std::string dir = testing::fresh_dir("rows_file_metadata");
  DuckDbSession duckdb;
  auto write = [&](const std::string& name, const std::string& metadata) {
    std::string path = dir + "/" + name;
    duckdb.execute("COPY (SELECT * FROM read_parquet(" + sql_string(built().output) + ")) TO " +
                   sql_string(path) + " (FORMAT parquet, KV_METADATA {'" + kRowsMetadataKey +
                   "': " + sql_string(metadata) + "})");
    return read_ok(path, duckdb);
  };
  RowsFileSummary array = write("array.parquet", "[1]");
  ASSERT_EQ(array.problems.size(), 1u) << testing::describe(array.problems);
  EXPECT_EQ(array.problems[0].field, "metadata.openrecipes.rows");
  nlohmann::json counts = built().metadata();
  counts["supervised_tokens"] = 999;
  counts["padding_tokens"] = 77;
  RowsFileSummary wrong = write("counts.parquet", counts.dump());
  std::vector<std::string> fields;
  for (const Problem& problem : wrong.problems) fields.push_back(problem.field);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"metadata.padding_tokens", "metadata.supervised_tokens"}));
}

}  // namespace
}  // namespace openrecipes
