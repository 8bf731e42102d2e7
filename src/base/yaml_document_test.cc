#include "base/yaml_document.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

std::optional<YamlDocument> parse(const std::string& text, Problems& problems) {
  return parse_yaml(text, "t.yaml", problems);
}

TEST(ParseYaml, KeepsPositionsOfEveryField) {
  Problems problems;
  auto document = parse("a: 1\nb:\n  c: [x, y]\n  d: 'q'\n", problems);
  ASSERT_TRUE(document) << problems.size();
  EXPECT_EQ(document->position_of("b.c").line, 3);
  EXPECT_EQ(document->position_of("b.c").column, 3);
  EXPECT_EQ(document->position_of("b.c[1]").column, 10);
  EXPECT_EQ(document->position_of("b.missing").line, 2);  // nearest present ancestor
}

TEST(ParseYaml, ResolvesScalarsByTheYaml12CoreSchema) {
  Problems problems;
  auto document = parse(
      "i: 42\nf: 1.5e3\nb: true\nn: null\ne:\ns: '12.9'\nd: 2026-10-13\nno: no\nbig: "
      "99999999999999999999\n",
      problems);
  ASSERT_TRUE(document);
  nlohmann::json json = to_json(document->root);
  EXPECT_EQ(json["i"], 42);
  EXPECT_DOUBLE_EQ(json["f"].get<double>(), 1500.0);
  EXPECT_EQ(json["b"], true);
  EXPECT_TRUE(json["n"].is_null());
  EXPECT_TRUE(json["e"].is_null());
  EXPECT_EQ(json["s"], "12.9");
  EXPECT_EQ(json["d"], "2026-10-13");  // dates stay strings
  EXPECT_EQ(json["no"], "no");         // YAML 1.1 booleans are strings in 1.2
  EXPECT_TRUE(json["big"].is_number_float());
}

TEST(ParseYaml, RejectsDuplicateKeysAtTheSecondKey) {
  Problems problems;
  EXPECT_FALSE(parse("a:\n  b: 1\n  b: 2\n", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "a.b");
  EXPECT_EQ(problems[0].position.line, 3);
}

TEST(ParseYaml, RejectsAnchorsAndAliases) {
  Problems problems;
  EXPECT_FALSE(parse("a: &x 1\nb: *x\n", problems));
  EXPECT_NE(problems.at(0).message.find("anchors"), std::string::npos);
}

TEST(ParseYaml, RejectsExplicitTags) {
  Problems problems;
  EXPECT_FALSE(parse("a: !!python/object x\n", problems));
  EXPECT_NE(problems.at(0).message.find("tag"), std::string::npos);
}

TEST(ParseYaml, RejectsInvalidUtf8NamingTheOffset) {
  Problems problems;
  EXPECT_FALSE(parse("a: ok\nb: \xe2\x28\xa1\n", problems));
  EXPECT_NE(problems.at(0).message.find("byte offset 9"), std::string::npos);
  EXPECT_EQ(problems.at(0).position.line, 2);
}

TEST(ParseYaml, RejectsDeepNestingWithoutCrashing) {
  Problems problems;
  std::string deep = "a: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  EXPECT_FALSE(parse(deep, problems));
  EXPECT_FALSE(problems.empty());
}

TEST(ParseYaml, RejectsNonScalarKeys) {
  Problems problems;
  EXPECT_FALSE(parse("? [a, b]\n: 1\n", problems));
  EXPECT_NE(problems.at(0).message.find("key"), std::string::npos);
}

TEST(ParseYaml, RejectsAQuotedStringLeftOpenAtTheEnd) {
  for (const char* text : {"a: 1\nnotes: \"never closed\n", "a: 1\nnotes: 'never closed\n"}) {
    Problems problems;
    EXPECT_FALSE(parse(text, problems)) << text;
    ASSERT_FALSE(problems.empty()) << text;
    EXPECT_NE(problems[0].message.find("never closed"), std::string::npos);
    EXPECT_EQ(problems[0].position.line, 2);
  }
  Problems problems;
  EXPECT_TRUE(parse("a: 'it''s closed'\nb: \"a \\\" quote\"\n", problems));
}

TEST(ParseYaml, RejectsControlCharactersRawOrEscaped) {
  Problems problems;
  EXPECT_FALSE(parse("model: x\x1b[2J\n", problems));
  EXPECT_NE(problems.at(0).message.find("U+001B"), std::string::npos);
  EXPECT_FALSE(parse("model: \"x\\e[2J\"\n", problems));
  EXPECT_NE(problems.at(1).message.find("U+001B"), std::string::npos);
  EXPECT_FALSE(parse("model: \"x\\0\"\n", problems));
  EXPECT_TRUE(parse("a: \"tab\\there\"\n", problems));
  // The bytes just outside printable ASCII, which the decoder-free fast path must not let by.
  for (const char* text : {"model: x\x7f\n", "model: x\x1f\n", "model: x\x01\n"}) {
    Problems each;
    EXPECT_FALSE(parse(text, each)) << text;
    ASSERT_EQ(each.size(), 1u);
    EXPECT_NE(each[0].message.find("control character U+00"), std::string::npos) << each[0].message;
    EXPECT_EQ(each[0].position.column, 9);
  }
  EXPECT_TRUE(parse("a: \t~ \x20\x7e\n", problems));
}

TEST(ParseYaml, RejectsBidirectionalOverrides) {
  Problems problems;
  EXPECT_FALSE(parse("notes: safe \u202e txet\n", problems));
  EXPECT_NE(problems.at(0).message.find("U+202E"), std::string::npos);
}

TEST(ParseYaml, RejectsTheLineBreaksOfYaml11Alone) {
  // libyaml (YAML 1.1) would start a new line at each; YAML 1.2 and editors would not.
  for (const char* text : {"notes: a\u0085b\n", "notes: a\u2028b\n", "notes: a\u2029b\n"}) {
    Problems problems;
    EXPECT_FALSE(parse(text, problems)) << text;
    ASSERT_EQ(problems.size(), 1u) << text;
    EXPECT_NE(problems[0].message.find("line-break character U+"), std::string::npos);
    EXPECT_EQ(problems[0].position.line, 1);
    EXPECT_EQ(problems[0].position.column, 9);
  }
}

TEST(ParseYaml, ASyntaxErrorSaysWhatAndWhereTheConstructStarts) {
  Problems problems;
  EXPECT_FALSE(parse("a:\n  b: 1\n c: 2\n", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rule, "yaml");
  EXPECT_EQ(problems[0].message,
            "YAML syntax error: did not find expected key, while parsing a block mapping that "
            "starts at 1:1");
  EXPECT_EQ(problems[0].position.line, 3);
  EXPECT_EQ(problems[0].position.column, 2);
}

TEST(ParseYaml, PositionsAfterMultibyteCharactersAndAByteOrderMark) {
  Problems problems;
  auto document = parse(
      "\xEF\xBB\xBF"
      "a: \xC3\xA9\xC3\xA9\nb:\n  - x\n  - \xF0\x9F\x98\x80: [1, 2]\n",
      problems);
  ASSERT_TRUE(document) << problems.size();
  EXPECT_EQ(document->position_of("b").line, 2);
  EXPECT_EQ(document->position_of("b[1]").line, 4);
  EXPECT_EQ(document->position_of("b[1]").column, 5);
  EXPECT_EQ(document->position_of("b[1].\xF0\x9F\x98\x80[1]").column, 12);
  // the null words and an empty value are null nodes; quoted ones are strings
  auto nulls = parse("a:\nb: ~\nc: null\nd: 'null'\ne: ! null\n", problems);
  ASSERT_TRUE(nulls);
  nlohmann::json json = to_json(nulls->root);
  EXPECT_TRUE(json["a"].is_null() && json["b"].is_null() && json["c"].is_null());
  EXPECT_EQ(json["d"], "null");
  EXPECT_EQ(json["e"], "null");
}

TEST(ParseYaml, ATabIndentIsNamed) {
  Problems problems;
  EXPECT_FALSE(parse("a:\n\tb: 1\n", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("a tab: YAML indents with spaces only"), std::string::npos)
      << problems[0].message;
  EXPECT_EQ(problems[0].position.line, 2);
}

TEST(ParseYaml, RejectsASecondDocumentAtItsStart) {
  Problems problems;
  EXPECT_FALSE(parse("a: 1\n---\nb: 2\n", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("more than one YAML document"), std::string::npos);
  EXPECT_EQ(problems[0].position.line, 2);
  EXPECT_TRUE(parse("---\na: 1\n", problems));
  EXPECT_FALSE(parse("# only a comment\n", problems));
  EXPECT_NE(problems.back().message.find("no YAML document"), std::string::npos);
}

TEST(ProblemLine, CutsVeryLongValues) {
  Problem problem{
      "f.yaml", {1, 2}, "model", "catalog.model", "unknown", "", std::string(100000, 'x')};
  std::string line = format_problem_line(problem);
  EXPECT_LT(line.size(), 400u);
  EXPECT_NE(line.find("(100000 bytes in all)"), std::string::npos);
}

TEST(ParseYaml, RejectsCrOnlyLineEndingsAndAcceptsCrlf) {
  Problems problems;
  EXPECT_FALSE(parse("a: 1\rb: 2\r", problems));
  EXPECT_NE(problems.at(0).message.find("CR alone"), std::string::npos);
  auto document = parse("a: 1\r\nb: 2\r\n", problems);
  ASSERT_TRUE(document);
  EXPECT_EQ(document->position_of("b").line, 2);
}

TEST(ParseYaml, LongScalarsAndKeysDoNotExhaustTheStack) {
  Problems problems;
  std::string digits(300000, '7');
  auto document = parse("a: " + digits + "\nb: 1." + digits + "\n", problems);
  ASSERT_TRUE(document);
  EXPECT_TRUE(to_json(document->root)["a"].is_number_float());  // beyond int64
  // YAML limits implicit keys to 1024 characters: a clear error, not a crash.
  EXPECT_FALSE(parse(std::string(300000, 'k') + ": 1\n", problems));
  EXPECT_FALSE(problems.empty());
}

TEST(ParseYaml, ColumnsCountCharactersNotBytes) {
  Problems problems;
  auto document = parse("gpu: {type: \"éééé\", count: 1}\n", problems);
  ASSERT_TRUE(document);
  EXPECT_EQ(document->position_of("gpu.count").column, 21);
}

TEST(ReadTextFile, RefusesMissingAndOversizedFiles) {
  Problems problems;
  EXPECT_FALSE(read_text_file("/nonexistent/x.yaml", 10, problems));
  EXPECT_EQ(problems.at(0).message, "no such file");
  EXPECT_FALSE(read_text_file("/", 10, problems));
  EXPECT_EQ(problems.at(1).message, "not a regular file");
}

TEST(DescribeFound, NamesTypeAndValue) {
  Problems problems;
  auto document = parse("a: x\nb: 3\nc: [1]\n", problems);
  ASSERT_TRUE(document);
  EXPECT_EQ(describe_found(*document->root.find("a")), "string \"x\"");
  EXPECT_EQ(describe_found(*document->root.find("b")), "integer 3");
  EXPECT_EQ(describe_found(*document->root.find("c")), "a list");
}

}  // namespace
}  // namespace openrecipes
