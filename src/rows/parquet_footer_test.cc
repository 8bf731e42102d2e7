#include "rows/parquet_footer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "base/error.h"
#include "rows/rows_file.h"
#include "test_support.h"

namespace openrecipes {
namespace {

// Compact-protocol bytes, spelled as in thrift-compact-protocol.md: a field header is
// (id delta << 4) | type; a list header is (size << 4) | element type, or 0xF0 | type followed by
// the size as a varint; 0x00 ends a struct.
std::string bytes(std::initializer_list<unsigned> values) {
  std::string out;
  for (unsigned value : values) out.push_back(static_cast<char>(value));
  return out;
}

std::string problem_of(const std::string& footer) {
  return thrift_compact_struct_problem(footer).value_or("");
}

TEST(ThriftCompactStruct, AWholeStructWithEveryKindOfValueIsSafe) {
  // field 1 i32 150; field 2 string "ab"; field 3 list<i64> [1, 2]; field 4 true; field 5 a
  // struct holding field 1 double 0.0; field 6 map<string,i32> {"k": 1}; field 7 an empty map.
  std::string footer = bytes({0x15, 0x96, 0x01, 0x18, 0x02, 'a', 'b',  0x19, 0x26, 0x02, 0x04,
                              0x11, 0x1c, 0x17, 0,    0,    0,   0,    0,    0,    0,    0,
                              0x00, 0x1b, 0x01, 0x85, 0x01, 'k', 0x02, 0x1b, 0x00, 0x00});
  EXPECT_EQ(thrift_compact_struct_problem(footer), std::nullopt);
}

TEST(ThriftCompactStruct, AListLongerThanTheBytesLeftIsRefusedBeforeItsElements) {
  // field 1: a list<string> declaring 240,000,000 elements (long form) in a 9-byte footer.
  std::string footer = bytes({0x19, 0xf8, 0x80, 0xb8, 0xb8, 0x72, 0x01, 'a', 0x00});
  std::string problem = problem_of(footer);
  EXPECT_NE(problem.find("declares a list of 240000000 elements"), std::string::npos) << problem;
  EXPECT_NE(problem.find("3 bytes are left"), std::string::npos) << problem;
}

TEST(ThriftCompactStruct, DoublesInAListNeedEightBytesEach) {
  EXPECT_EQ(problem_of(bytes({0x19, 0x17, 0, 0, 0, 0, 0, 0, 0, 0, 0x00})), "");
  EXPECT_NE(problem_of(bytes({0x19, 0x27, 0, 0, 0, 0, 0, 0, 0, 0, 0x00})).find("list of 2"),
            std::string::npos);
}

TEST(ThriftCompactStruct, AMapOrAStringLongerThanTheBytesLeftIsRefused) {
  EXPECT_NE(problem_of(bytes({0x1b, 0x90, 0x4e, 0x55, 0x02, 0x02, 0x00})).find("map of 10000"),
            std::string::npos);
  EXPECT_NE(problem_of(bytes({0x18, 0x64, 'a', 'b', 0x00})).find("declares 100 bytes of a string"),
            std::string::npos);
}

TEST(ThriftCompactStruct, ManyTinyStructsInListsAreRefusedThoughTheBytesHoldThem) {
  // field 1: a list of N empty structs (one stop byte each), as a row group's column chunks.
  auto footer_of = [](std::uint32_t structs) {
    std::string footer = bytes({0x19, 0xfc});
    for (std::uint32_t n = structs;; n >>= 7) {  // the size as a varint
      footer.push_back(static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0)));
      if (n < 0x80) break;
    }
    footer.append(structs, '\0');
    footer.push_back('\0');
    return footer;
  };
  EXPECT_EQ(problem_of(footer_of(100000)), "");
  std::string problem = problem_of(footer_of(100001));
  EXPECT_NE(problem.find("more than 100000 structs in lists"), std::string::npos) << problem;
}

TEST(ThriftCompactStruct, TruncatedDeepOrUnknownInputIsRefused) {
  EXPECT_NE(problem_of(bytes({0x15})).find("ends at byte 1 inside an integer"), std::string::npos);
  EXPECT_NE(problem_of(bytes({0x15, 0x01})).find("inside a field header"), std::string::npos);
  EXPECT_NE(problem_of(bytes({0x1e})).find("unknown Thrift type 14"), std::string::npos);
  EXPECT_NE(problem_of(bytes({0x15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                              0x01, 0x00}))
                .find("varint longer than 10 bytes"),
            std::string::npos);
  std::string deep;
  for (int i = 0; i < 100; ++i) deep.push_back(0x1c);  // field 1: a struct, 100 times nested
  deep.append(100, '\0');
  EXPECT_NE(problem_of(deep).find("nest deeper than 64"), std::string::npos);
  // A field id given in long form (delta 0, then a zigzag varint) is read past.
  EXPECT_EQ(problem_of(bytes({0x05, 0x0a, 0x01, 0x00})), "");
}

TEST(ParquetFooter, FootersDuckDbWritesAreSafe) {
  // Two rows files `rows build` wrote (the fuzz target's seeds).
  for (const char* name : {"rows.parquet", "rows_qwen3.parquet"}) {
    std::string path = testing::source_dir() + "/fuzz/corpus/rows_file/" + name;
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_EQ(parquet_footer_problem(path), std::nullopt) << path;
  }
}

TEST(ParquetFooter, AFooterDeclaringMillionsOfColumnsIsARowsFileProblemWithoutTheAllocation) {
  // Found by the rows_file fuzz target (fuzz/README.md): DuckDB sized a vector<string> from the
  // count and allocated 7.7 GB before this check existed.
  std::string path =
      testing::source_dir() + "/fuzz/corpus/rows_file/oom-footer-column-count.parquet";
  std::optional<std::string> problem = parquet_footer_problem(path);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("Parquet footer declares a list of"), std::string::npos) << *problem;

  DuckDbSession duckdb;
  Problems problems;
  EXPECT_FALSE(read_rows_file(path, duckdb, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, path);
  EXPECT_EQ(problems[0].field, "footer");
  EXPECT_NE(problems[0].message.find("not a readable rows file (its"), std::string::npos)
      << problems[0].message;
}

TEST(ParquetFooter, FilesThatAreNotPlainParquetAreLeftToDuckDb) {
  std::string dir = testing::fresh_dir("parquet_footer_plain");
  auto write = [&](const std::string& name, const std::string& content) {
    std::ofstream(dir + "/" + name, std::ios::binary) << content;
    return dir + "/" + name;
  };
  EXPECT_EQ(parquet_footer_problem(write("short", "PAR1PAR1")), std::nullopt);
  EXPECT_EQ(parquet_footer_problem(write("text", "not a parquet file at all")), std::nullopt);
  EXPECT_EQ(parquet_footer_problem(write("long", std::string("PAR1\xff\xff\xff\x7fPAR1", 12))),
            std::nullopt);
  EXPECT_THROW(parquet_footer_problem(dir + "/missing"), IoError);
}

}  // namespace
}  // namespace openrecipes
