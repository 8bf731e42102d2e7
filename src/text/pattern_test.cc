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

TEST(Pattern, FindAllGivesEveryNonEmptyMatchLeftToRight) {
  EXPECT_EQ(compiled(R"(/[\w.-]+)").find_all("a /x/y b /é"), (Spans{{2, 4}, {4, 6}, {9, 12}}));
  // Empty matches are skipped, and the search still moves on past them.
  EXPECT_EQ(compiled("x*").find_all("axxbx"), (Spans{{1, 3}, {4, 5}}));
  // \K moves a match's start; a match across a multibyte character ends after its last byte.
  EXPECT_EQ(compiled(R"(\d+\K\.)").find_all("10.0.1"), (Spans{{2, 3}, {4, 5}}));
  EXPECT_EQ(compiled("é+").find_all("aéé b é"), (Spans{{1, 5}, {8, 10}}));
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
