#include "base/yaml_splice.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace openrecipes {
namespace {

// A draft shaped like `openrecipes export`'s: a header comment, nested mappings, a null, a
// comment that belongs to the next key and a block scalar last.
const char* kDraft =
    "# a draft\n"
    "status: planned\n"
    "workload:\n"
    "  rows: SFT\n"
    "  dataset:\n"
    "  precision: bf16\n"
    "prediction:\n"
    "  tokens: 1\n"
    "  fits: true\n"
    "\n"
    "# the result, once measured\n"
    "result: null\n"
    "run: |\n"
    "  # a shell comment, not YAML's\n"
    "  train --tp 1\n";

YamlDocument parsed(const std::string& text) {
  Problems problems;
  std::optional<YamlDocument> document = parse_yaml(text, "draft.yaml", problems);
  EXPECT_TRUE(document) << problems.size();
  return document.value_or(YamlDocument{});
}

TEST(YamlEntryLines, AnEntryRunsToTheNextKeyLessTheCommentsThatLeadIntoIt) {
  YamlDocument document = parsed(kDraft);
  std::optional<LineRange> prediction = yaml_entry_lines(document, "prediction");
  ASSERT_TRUE(prediction);
  EXPECT_EQ(prediction->first, 7);
  EXPECT_EQ(prediction->end, 10);  // the blank line and "# the result" stay with result
  std::optional<LineRange> dataset = yaml_entry_lines(document, "workload.dataset");
  ASSERT_TRUE(dataset);
  EXPECT_EQ(dataset->first, 5);
  EXPECT_EQ(dataset->end, 6);
  std::optional<LineRange> precision = yaml_entry_lines(document, "workload.precision");
  ASSERT_TRUE(precision);
  EXPECT_EQ(precision->end, 7);  // the last entry of a mapping ends where its parent does
  std::optional<LineRange> run = yaml_entry_lines(document, "run");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->end, 16);  // to the end of the file, the script's own comment included
  EXPECT_FALSE(yaml_entry_lines(document, "missing"));
  EXPECT_FALSE(yaml_entry_lines(document, "status.deeper"));
}

TEST(SpliceLines, ReplacesDeletesAndKeepsEveryOtherLine) {
  YamlDocument document = parsed(kDraft);
  std::string out = splice_lines(
      kDraft,
      {{*yaml_entry_lines(document, "result"), "result:\n  tokens: 2\n"},
       {*yaml_entry_lines(document, "prediction"), ""},
       {*yaml_entry_lines(document, "status"), "status: verified\n"},
       {*yaml_entry_lines(document, "workload.dataset"), "  dataset:\n    name: Tulu 3\n"}});
  EXPECT_EQ(out,
            "# a draft\n"
            "status: verified\n"
            "workload:\n"
            "  rows: SFT\n"
            "  dataset:\n"
            "    name: Tulu 3\n"
            "  precision: bf16\n"
            "\n"
            "# the result, once measured\n"
            "result:\n"
            "  tokens: 2\n"
            "run: |\n"
            "  # a shell comment, not YAML's\n"
            "  train --tp 1\n");
  Problems problems;
  EXPECT_TRUE(parse_yaml(out, "out.yaml", problems));
}

TEST(SpliceLines, OverlappingOrOutOfRangeEditsAreBugs) {
  EXPECT_THROW(splice_lines("a\nb\n", {{{1, 2}, ""}, {{1, 3}, ""}}), BugError);
  EXPECT_THROW(splice_lines("a\nb\n", {{{2, 5}, ""}}), BugError);
  EXPECT_EQ(splice_lines("a\nb", {{{3, 3}, "c\n"}}), "a\nbc\n");  // inserts at the end
}

}  // namespace
}  // namespace openrecipes
