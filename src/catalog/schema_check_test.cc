// The schemas themselves, and what the schema check reports for a real recipe with one field off.
#include "catalog/schema_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;
using testing::read_source_file;
using testing::replace_all;
using testing::source_dir;

const std::string kGptOss = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";

// Only draft-07 keywords (and our x- extensions) may appear where a schema is expected: a stray
// key there is almost always a description with an unquoted comma in a flow mapping.
void expect_only_keywords(const nlohmann::json& schema, const std::string& where) {
  static const std::set<std::string> kKeywords = {"$schema",
                                                  "$id",
                                                  "$ref",
                                                  "title",
                                                  "description",
                                                  "type",
                                                  "properties",
                                                  "required",
                                                  "additionalProperties",
                                                  "minProperties",
                                                  "items",
                                                  "enum",
                                                  "const",
                                                  "pattern",
                                                  "minimum",
                                                  "maximum",
                                                  "exclusiveMinimum",
                                                  "minItems",
                                                  "maxItems",
                                                  "minLength",
                                                  "anyOf",
                                                  "oneOf",
                                                  "definitions",
                                                  "dependencies",
                                                  "examples",
                                                  "propertyNames",
                                                  "x-cross-field-rules"};
  if (!schema.is_object()) return;
  for (const auto& [key, value] : schema.items()) {
    EXPECT_TRUE(kKeywords.count(key)) << where << ": '" << key << "' is not a schema keyword";
    if (key == "properties" || key == "definitions") {
      for (const auto& [name, child] : value.items())
        expect_only_keywords(child, where + "/" + name);
    } else if (key == "items" || key == "additionalProperties" || key == "propertyNames") {
      expect_only_keywords(value, where + "/" + key);
    }
  }
}

// Every property has a description (the field reference is generated from them).
void expect_described(const nlohmann::json& schema, const std::string& where) {
  if (!schema.is_object() || !schema.contains("properties")) return;
  for (const auto& [name, child] : schema.at("properties").items()) {
    EXPECT_TRUE(child.contains("description")) << where << "/" << name << " has no description";
    expect_described(child, where + "/" + name);
    if (child.contains("items")) expect_described(child.at("items"), where + "/" + name + "[]");
  }
}

TEST(Schemas, UseOnlyKeywordsAndDescribeEveryField) {
  for (const char* name :
       {"recipe", "models", "gpus", "authors", "measurements", "measurement-models"}) {
    Problems problems;
    auto checker = SchemaChecker::load(source_dir() + "/schema/" + name + ".schema.yaml", problems);
    ASSERT_TRUE(checker) << describe(problems);
    expect_only_keywords(checker->json(), name);
    expect_described(checker->json(), name);
  }
}

Problems check_edited(const std::string& from, const std::string& to) {
  Problems problems;
  auto checker = SchemaChecker::load(source_dir() + "/schema/recipe.schema.yaml", problems);
  EXPECT_TRUE(checker);
  std::string text = replace_all(read_source_file(kGptOss), from, to);
  auto document = parse_yaml(text, kGptOss, problems);
  EXPECT_TRUE(document) << describe(problems);
  return checker->check(*document);
}

TEST(SchemaCheck, RealRecipePasses) {
  EXPECT_TRUE(check_edited("model: gpt-oss-20b", "model: gpt-oss-20b").empty());
}

TEST(SchemaCheck, WrongTypeNamesExpectedAndFound) {
  Problems problems = check_edited("  count: 8", "  count: eight");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "gpu.count");
  EXPECT_EQ(problems[0].position.line, 8);
  EXPECT_EQ(problems[0].expected, "integer");
  EXPECT_EQ(problems[0].found, "string \"eight\"");
}

TEST(SchemaCheck, ProtocolConstantsAreEnforced) {
  Problems problems = check_edited("  global_batch: 128", "  global_batch: 256");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "workload.global_batch");
  EXPECT_EQ(problems[0].expected, "128");
}

TEST(SchemaCheck, MissingFieldIsReportedAtItsParent) {
  Problems problems = check_edited("  dispatcher: alltoall\n", "");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "layout.dispatcher");
  EXPECT_EQ(problems[0].message, "missing required field");
  EXPECT_EQ(problems[0].position.line, 53);  // the `layout:` key
}

TEST(SchemaCheck, UnknownFieldListsTheKnownOnes) {
  Problems problems = check_edited("  per_node: 8\n", "  per_node: 8\n  per_rack: 72\n");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "gpu.per_rack");
  EXPECT_EQ(problems[0].message, "unknown field");
  EXPECT_NE(problems[0].expected.find("per_node"), std::string::npos);
}

TEST(SchemaCheck, EnumAndPatternSayWhatIsAllowed) {
  Problems problems = check_edited("dispatcher: alltoall", "dispatcher: deepep");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_NE(problems[0].expected.find("alltoall, allgather, flex"), std::string::npos);
  problems = check_edited("measured: 2026-10-13", "measured: 13/10/2026");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_NE(problems[0].expected.find("2026-10-13"), std::string::npos);
}

TEST(SchemaCheck, OutOfRangeNumbersFail) {
  Problems problems = check_edited("  tp: 1", "  tp: 0");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "layout.tp");
  // An integer past int64 is read as a double: still a number too large, not a wrong type.
  problems = check_edited("  count: 8", "  count: 99999999999999999999999");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "gpu.count");
  EXPECT_EQ(problems[0].message, "too large");
  EXPECT_EQ(problems[0].expected, "at most 1000000");
  problems = check_edited("  memory_gb: 141", "  memory_gb: -99999999999999999999999");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].message, "too small");
  EXPECT_EQ(problems[0].expected, "at least 1");
  // A number with a point or an exponent is a wrong type where an integer is expected.
  problems = check_edited("  memory_gb: 141", "  memory_gb: 1e400");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].message, "wrong type");
}

TEST(SchemaCheck, IntegersBeyondTheirRangeFailBeforeAnyNarrowing) {
  Problems problems = check_edited("pointwise_failures: 0", "pointwise_failures: 4294967296");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].message, "too large");
  EXPECT_EQ(problems[0].expected, "at most 100000");
  problems = check_edited("  - 5\n  - 19", "  - 4294967301\n  - 19");
  EXPECT_FALSE(problems.empty());
}

TEST(SchemaCheck, PatternsHoldOnVeryLongStrings) {
  // std::regex would overflow the stack here; the PCRE2 check just says no.
  Problems problems =
      check_edited("patches/attune_gpt_oss_yarn.py", "patches/" + std::string(200000, 'a') + " b");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "patches[0]");
  EXPECT_EQ(problems[0].message, "wrong format");
}

// A pattern reached through a "$ref" deep in the document names the whole path to the value.
TEST(SchemaCheck, APatternBehindAReferenceNamesTheFullPath) {
  Problems problems = check_edited("rows_sha256: de2b9bb0f", "rows_sha256: XYZb9bb0f");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "workload.dataset.rows_sha256");
  EXPECT_EQ(problems[0].message, "wrong format");
  EXPECT_EQ(problems[0].position.line, 37);
}

TEST(SchemaCheck, EnvironmentNamesMustBeShellNames) {
  Problems problems = check_edited("  PARITY_PROBE: '0'", "  PARITY PROBE; rm -rf /: '0'");
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].field, "env.PARITY PROBE; rm -rf /");
  EXPECT_EQ(problems[0].message, "wrong format of a name");
}

// check_patterns walks only the parts of a document whose schema holds a pattern somewhere below
// it; each pattern of the recipe schema that the bundled recipe reaches is still checked, wherever
// it sits (behind a $ref, under propertyNames, in an array's items).
TEST(SchemaCheck, EveryPatternTheRecipeReachesIsChecked) {
  struct Case {
    std::string from, to, field;
  };
  for (const Case& c : std::vector<Case>{
           {"  measured: 2026-10-13", "  measured: 2026/10/13", "result.measured"},
           {"    revision: 6cee5e81ee83917806bbde320786a8fb61efebee", "    revision: main",
            "model.active_params.revision"},
           {"    source: https://huggingface.co/openai/gpt-oss-20b",
            "    source: http://huggingface.co/openai/gpt-oss-20b", "model.active_params.source"},
           {"      loss_mask: gpt_oss", "      loss_mask: Gpt-Oss",
            "workload.dataset.builder.loss_mask"},
           {"- patches/attune_gpt_oss_yarn.py", "- ../attune_gpt_oss_yarn.py", "patches[0]"},
       }) {
    Problems problems = check_edited(c.from, c.to);
    bool found = false;
    for (const Problem& p : problems) found = found || (p.message == "wrong format");
    EXPECT_TRUE(found) << c.to << "\n" << describe(problems);
    if (!problems.empty()) {
      EXPECT_EQ(problems[0].field.substr(problems[0].field.rfind('.') + 1),
                c.field.substr(c.field.rfind('.') + 1))
          << describe(problems);
    }
  }
}

// A schema file in a temporary folder, for the broken-schema cases.
std::string write_schema(const std::string& name, const std::string& text) {
  std::string path = testing::test_temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(SchemaLoad, BrokenSchemasAreProblemsNotCrashes) {
  const std::pair<std::string, std::string> cases[] = {
      {"bad_ref.yaml", "type: object\nproperties:\n  a: {$ref: '#/definitions/nope'}\n"},
      {"bad_type.yaml", "type: objekt\n"},
      {"bad_pattern.yaml", "type: object\nproperties:\n  a: {type: string, pattern: '[a-z'}\n"},
      {"not_a_schema.yaml", "foo\n"},
  };
  for (const auto& [name, text] : cases) {
    Problems problems;
    EXPECT_FALSE(SchemaChecker::load(write_schema(name, text), problems)) << name;
    EXPECT_FALSE(problems.empty()) << name;
  }
}

TEST(SchemaLoad, APathologicalPatternEndsQuickly) {
  Problems problems;
  auto checker = SchemaChecker::load(
      write_schema("slow.yaml",
                   "type: object\nproperties:\n  a: {type: string, pattern: '(a+)+$'}\n"),
      problems);
  ASSERT_TRUE(checker) << describe(problems);
  // (PCRE2's JIT answers ^(a*)*b$ at once; (a+)+$ before a last b still backtracks without end.)
  auto document = parse_yaml("a: " + std::string(5000, 'a') + "b\n", "x.yaml", problems);
  ASSERT_TRUE(document);
  Problems found = checker->check(*document);
  ASSERT_EQ(found.size(), 1u) << describe(found);
  EXPECT_NE(found[0].message.find("too complex"), std::string::npos);
}

}  // namespace
}  // namespace openrecipes
