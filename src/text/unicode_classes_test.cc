#include "text/unicode_classes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/problem.h"
#include "text/split_regex.h"

namespace openrecipes {
namespace {

// UTF-8 of one code point.
std::string utf8(char32_t cp) {
  std::string out;
  auto byte = [&out](char32_t b) { out += static_cast<char>(b); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | cp >> 6), byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | cp >> 12), byte(0x80 | (cp >> 6 & 0x3F)), byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | cp >> 18), byte(0x80 | (cp >> 12 & 0x3F)), byte(0x80 | (cp >> 6 & 0x3F));
    byte(0x80 | (cp & 0x3F));
  }
  return out;
}

// The whole matches of `pattern` (through the tokenizer's own SplitRegex, so with the classes
// spelled out) in `text`, joined by '|'.
std::string matches(const std::string& pattern, const std::string& text) {
  Problems problems;
  auto regex = SplitRegex::compile(pattern, pattern, Problem{}, problems);
  EXPECT_TRUE(regex) << (problems.empty() ? "" : problems[0].message);
  if (!regex) return "";
  std::string out;
  regex->for_each_match(text, [&](std::size_t begin, std::size_t end) {
    if (!out.empty()) out += '|';
    out += text.substr(begin, end - begin);
  });
  return out;
}

TEST(UnicodeClasses, TablesAreUnicode16) {
  EXPECT_EQ(unicode_classes_version(), "16.0.0");
  // Characters added in Unicode 15.0, 15.1 and 16.0 (UnicodeData.txt of each version).
  EXPECT_EQ(unicode_property_has("Lm", 0x1E030), true);  // 15.0 MODIFIER LETTER CYRILLIC SMALL A
  EXPECT_EQ(unicode_property_has("Lo", 0x11F04), true);  // 15.0 KAWI LETTER A
  EXPECT_EQ(unicode_property_has("Mc", 0x0CF3), true);   // 15.0 KANNADA SIGN COMBINING ANUSVARA
  EXPECT_EQ(unicode_property_has("L", 0x2EBF0), true);   // 15.1 CJK Extension I
  EXPECT_EQ(unicode_property_has("Lu", 0x1C89), true);   // 16.0 CYRILLIC CAPITAL LETTER TJE
  EXPECT_EQ(unicode_property_has("Ll", 0x1C89), false);
  EXPECT_EQ(unicode_property_has("Cn", 0x1C89), false);
  EXPECT_EQ(unicode_property_has("Cn", 0x10FFFF), true);  // a noncharacter, never assigned
}

TEST(UnicodeClasses, NamesAreShortOrLongAndCompareLoosely) {
  EXPECT_EQ(unicode_property_has("Uppercase_Letter", 'A'), true);
  EXPECT_EQ(unicode_property_has("uppercase letter", 'a'), false);
  EXPECT_EQ(unicode_property_has("L&", 'a'), true);
  EXPECT_EQ(unicode_property_has("Han", 0x4E00), std::nullopt);  // a script: not in the tables
}

TEST(UnicodeClasses, WhiteSpaceIsUnicodesNotPcre2s) {
  EXPECT_EQ(unicode_property_has("White_Space", 0x85), true);
  EXPECT_EQ(unicode_property_has("White_Space", 0x180E), false);  // left White_Space in 6.3
  EXPECT_EQ(unicode_property_has("White_Space", 0xFEFF), false);
  EXPECT_EQ(matches("\\s+", "a \u0085\u180e\ufeffb"), " \u0085");
  EXPECT_EQ(matches("\\S+", "a\u180e b"), "a\u180e|b");
}

TEST(UnicodeClasses, NewLettersAndMarksMatchInAndOutsideClasses) {
  const std::string kawi = utf8(0x11F04), tje = utf8(0x1C89), anusvara = utf8(0x0CF3);
  EXPECT_EQ(matches("\\p{L}+", "x" + kawi + tje + "!"), "x" + kawi + tje);
  EXPECT_EQ(matches("\\pL+", kawi + "1"), kawi);
  EXPECT_EQ(matches("\\P{L}+", kawi + "12" + tje), "12");
  EXPECT_EQ(matches("\\p{^L}+", kawi + "12" + tje), "12");
  EXPECT_EQ(matches("[^\\s\\p{L}\\p{N}]+", "a" + kawi + " ?!" + anusvara), "?!" + anusvara);
  EXPECT_EQ(matches("[\\p{Lu}\\p{M}]+", "A" + anusvara + tje + "a"), "A" + anusvara + tje);
  EXPECT_EQ(matches("[\\P{Lu}]+", "ab" + tje + "c"), "ab|c");
  EXPECT_EQ(matches("[^\\P{Lu}]+", "ab" + tje + "c"), tje);
}

TEST(UnicodeClasses, WhatIsNotAClassEscapeIsKeptAsWritten) {
  EXPECT_EQ(with_unicode16_classes("\\Q\\p{L}\\s\\E"), "\\Q\\p{L}\\s\\E");
  EXPECT_EQ(with_unicode16_classes("(?#\\p{L})a"), "(?#\\p{L})a");
  EXPECT_EQ(with_unicode16_classes("[[:alpha:]]\\\\p\\p{Han}\\w"), "[[:alpha:]]\\\\p\\p{Han}\\w");
  EXPECT_EQ(with_unicode16_classes("\\p{L"), "\\p{L");  // pcre2_compile names the error
  EXPECT_EQ(matches("\\Q\\s\\E", "a\\sb"), "\\s");
}

TEST(UnicodeClasses, LiteralDashAndBracketStayLiterals) {
  EXPECT_EQ(matches("[\\p{Lu}-z]+", "A-z.b"), "A-z");
  EXPECT_EQ(matches("[-\\p{Nd}]+", "1-2x"), "1-2");
  EXPECT_EQ(matches("[]\\p{Nd}]+", "1]2x"), "1]2");
  EXPECT_EQ(matches("[^]\\p{Nd}]+", "ab]1c"), "ab|c");
}

TEST(UnicodeClasses, CompileErrorsNameTheOffsetAsWritten) {
  Problems problems;
  EXPECT_FALSE(SplitRegex::compile("\\p{L}+(", "\\p{L}+(", Problem{}, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("at offset 7"), std::string::npos) << problems[0].message;
}

// Every code point but the surrogates, in one text: the spelled-out class (and its complement,
// which the rewriter computes) matches exactly the code points the tables give the property.
TEST(UnicodeClasses, SpelledOutClassesAgreeWithTheTablesOnEveryCodePoint) {
  std::string text;
  std::vector<char32_t> at_byte;  // the code point starting at each byte offset
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string bytes = utf8(cp);
    at_byte.resize(text.size() + bytes.size(), cp);
    text += bytes;
  }
  // Mn lost U+1171E to Mc in Unicode 16: PCRE2's own \p{Mn} cannot be kept there.
  for (std::string name : {"L", "Lu", "Lo", "M", "Mn", "Mc", "N", "P", "S", "Cn", "White_Space"}) {
    std::string escape = name == "White_Space" ? "s" : "p{" + name + "}";
    std::string negated = name == "White_Space" ? "S" : "P{" + name + "}";
    for (const std::string& pattern : {"\\" + escape, "\\" + negated, "[\\" + negated + "]"}) {
      Problems problems;
      auto regex = SplitRegex::compile(pattern, pattern, Problem{}, problems);
      ASSERT_TRUE(regex) << pattern;
      bool want_in = pattern[1] == escape[0];
      std::vector<bool> matched(text.size(), false);
      int not_one = 0;
      regex->for_each_match(text, [&](std::size_t begin, std::size_t end) {
        matched[begin] = true;
        if (end - begin != utf8(at_byte[begin]).size()) ++not_one;
      });
      EXPECT_EQ(not_one, 0) << pattern << ": each match is one code point";
      int wrong = 0;
      for (std::size_t i = 0; i < text.size() && wrong < 5; ++i) {
        if (i > 0 && at_byte[i] == at_byte[i - 1]) continue;  // not the first byte of one
        bool want = *unicode_property_has(name, at_byte[i]) == want_in;
        if (matched[i] != want) {
          ADD_FAILURE() << pattern << " U+" << std::hex << static_cast<unsigned>(at_byte[i])
                        << ": matched " << matched[i] << ", the tables say " << want;
          ++wrong;
        }
      }
    }
  }
}

}  // namespace
}  // namespace openrecipes
