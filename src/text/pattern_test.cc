#include "text/pattern.h"

#include <gtest/gtest.h>

#include <string>

namespace openrecipes {
namespace {

Pattern compiled(const std::string& source) {
  Problems problems;
  std::optional<Pattern> pattern = Pattern::compile(source, {}, problems);
  EXPECT_TRUE(pattern) << source;
  return *pattern;
}

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

// find_all must give what the find() loop it replaced gave: every match, empty ones skipped,
// each search resuming at the previous match's end.
Spans by_find(const Pattern& pattern, std::string_view text) {
  Spans out;
  for (std::size_t from = 0; auto match = pattern.find(text, from);) {
    if (match->second > match->first) out.push_back(*match);
    std::size_t next = std::max(match->second, from + 1);
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    if (next > text.size()) break;
    from = next;
  }
  return out;
}

TEST(Pattern, FindAllGivesEveryMatchAsRepeatedFindDoes) {
  const std::string text = "cd /data/ckpt && ls /home/é/x ~user/y \xC3\xA9/z 10.0.0.1 /";
  for (const char* source :
       {R"(/[\w.-]+(?:/[\w.-]*)*)", R"((?<![\w/])~?[a-z]*)", R"(\d+\K\.)", R"(é)", R"(x*)"}) {
    Pattern pattern = compiled(source);
    Spans all = pattern.find_all(text);
    EXPECT_EQ(all, by_find(pattern, text)) << source;
  }
  EXPECT_EQ(compiled(R"(/[\w.-]+)").find_all("a /x/y b /é"), (Spans{{2, 4}, {4, 6}, {9, 12}}));
}

TEST(Pattern, FindAllOfNothingAndOfInvalidTextIsEmpty) {
  EXPECT_TRUE(compiled("a").find_all("").empty());
  EXPECT_TRUE(compiled("a").find_all("bbb").empty());
  // Bytes that are not UTF-8: the first search refuses them, so nothing is found (never a read
  // past the text).
  EXPECT_TRUE(compiled("a").find_all("a\xFF").empty());
}

TEST(Pattern, CatastrophicBacktrackingEndsAsTooComplex) {
  Pattern pattern = compiled("(a+)+$");
  std::string text(40, 'a');
  text += 'b';
  EXPECT_EQ(pattern.search(text), Pattern::Result::kTooComplex);
  EXPECT_TRUE(pattern.find_all(text).empty());
  EXPECT_EQ(pattern.search("aaa"), Pattern::Result::kMatch);
}

}  // namespace
}  // namespace openrecipes
