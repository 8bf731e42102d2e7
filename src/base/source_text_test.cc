#include "base/source_text.h"

#include <gtest/gtest.h>

#include <string>

namespace openrecipes {
namespace {

// The position a reader counts by hand: lines split at '\n', columns counting UTF-8 lead bytes.
SourcePosition counted(const std::string& text, std::size_t offset) {
  SourcePosition p{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++p.column;
    }
  }
  return p;
}

TEST(SourceText, ColumnsCountCharactersOnLinesLongerThanACheckpointBlock) {
  // Lines of 0 to 3,000 bytes with two- and three-byte characters across the 256-byte blocks.
  std::string text = "a: 1\n";
  for (int i = 0; i < 700; ++i) text += i % 3 == 0 ? "é" : i % 3 == 1 ? "x" : "€";
  text += "\n\n";
  for (int i = 0; i < 3000; ++i) text += static_cast<char>('a' + i % 26);
  text += "\nlast é";
  SourceText source(text);
  for (std::size_t offset = 0; offset <= text.size() + 2; ++offset) {
    SourcePosition want = counted(text, offset);
    SourcePosition got = source.position(offset);
    ASSERT_EQ(got.line, want.line) << offset;
    ASSERT_EQ(got.column, want.column) << offset;
  }
}

TEST(SourceText, AnEmptyTextHasOnePosition) {
  SourceText source("");
  EXPECT_EQ(source.position(0).line, 1);
  EXPECT_EQ(source.position(5).column, 1);
}

}  // namespace
}  // namespace openrecipes
