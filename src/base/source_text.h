// A file's text with a line index, to turn byte offsets into 1-based line and character columns.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "base/problem.h"

namespace openrecipes {

/// Maps byte offsets of one text to positions. Columns count characters (UTF-8 code points),
/// not bytes, so that they match what an editor shows. Each lookup takes O(log lines + kBlock)
/// whatever the line's length (a 1 MB one-line JSON array asks for one position per value). The
/// text must outlive this object.
class SourceText {
 public:
  explicit SourceText(std::string_view text);

  /// The position of byte `offset` (clamped to the text): line and column from 1.
  SourcePosition position(std::size_t offset) const;

  /// The text of 1-based `line` without its line break; empty when out of range.
  std::string_view line(int line) const;

 private:
  /// Bytes per checkpoint of the count of UTF-8 continuation bytes.
  static constexpr std::size_t kBlock = 256;

  /// UTF-8 continuation bytes in text_[0, offset).
  std::size_t continuation_bytes_before(std::size_t offset) const;

  std::string_view text_;
  std::vector<std::size_t> line_starts_;
  /// continuation_before_[b]: continuation bytes in text_[0, b x kBlock).
  std::vector<std::size_t> continuation_before_;
};

}  // namespace openrecipes
