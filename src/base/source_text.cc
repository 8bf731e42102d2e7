#include "base/source_text.h"

#include <algorithm>

namespace openrecipes {

SourceText::SourceText(std::string_view text) : text_(text) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourcePosition SourceText::position(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::size_t index = static_cast<std::size_t>(next - line_starts_.begin()) - 1;
  int column = 1;
  for (std::size_t i = line_starts_[index]; i < offset; ++i) {
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;  // count lead bytes
  }
  return {static_cast<int>(index) + 1, column};
}

std::string_view SourceText::line(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > line_starts_.size()) return {};
  std::size_t begin = line_starts_[static_cast<std::size_t>(line) - 1];
  std::size_t end = static_cast<std::size_t>(line) < line_starts_.size()
                        ? line_starts_[static_cast<std::size_t>(line)] - 1
                        : text_.size();
  std::string_view text = text_.substr(begin, end - begin);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

}  // namespace openrecipes
