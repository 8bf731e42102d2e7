#include "base/ascii.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

TEST(Ascii, LowercasesOnlyAsciiLetters) {
  EXPECT_EQ(ascii_lowercase("Qwen3.5-122B-A10B"), "qwen3.5-122b-a10b");
  EXPECT_EQ(ascii_lowercase(".YAML"), ".yaml");
  EXPECT_EQ(ascii_lowercase("@-_[`{09"), "@-_[`{09");  // the bytes around A-Z and a-z stay
  EXPECT_EQ(ascii_lowercase(""), "");
}

TEST(Ascii, LeavesUtf8Unchanged) {
  EXPECT_EQ(ascii_lowercase("\xC3\x89t\xC3\xA9 \xE4\xBD\xA0"),
            "\xC3\x89t\xC3\xA9 \xE4\xBD\xA0");  // "Été 你"
  EXPECT_EQ(ascii_lowercase("\xC3\x89T\xC3\xA9"), "\xC3\x89t\xC3\xA9");
}

TEST(Ascii, LowersOneCharacter) {
  EXPECT_EQ(ascii_lower('A'), 'a');
  EXPECT_EQ(ascii_lower('Z'), 'z');
  EXPECT_EQ(ascii_lower('a'), 'a');
  EXPECT_EQ(ascii_lower('-'), '-');
  EXPECT_EQ(ascii_lower('\xC3'), '\xC3');
}

}  // namespace
}  // namespace openrecipes
