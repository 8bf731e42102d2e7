#include "base/source_text.h"

#include <algorithm>
#include <cstring>

namespace openrecipes {

namespace {

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

SourceText::SourceText(std::string_view text) : text_(text) {
  // Two simple passes, each of which the compiler and libc vectorize: newlines by memchr, then
  // continuation bytes block by block.
  line_starts_.push_back(0);
  for (const char* at = text.data(); at != text.data() + text.size();) {
    const void* found =
        std::memchr(at, '\n', static_cast<std::size_t>(text.data() + text.size() - at));
    if (!found) break;
    at = static_cast<const char*>(found) + 1;
    line_starts_.push_back(static_cast<std::size_t>(at - text.data()));
  }
  continuation_before_.reserve(text.size() / kBlock + 1);
  std::size_t continuation = 0;
  for (std::size_t begin = 0; begin < text.size(); begin += kBlock) {
    continuation_before_.push_back(continuation);
    const std::size_t end = std::min(text.size(), begin + kBlock);
    for (std::size_t i = begin; i < end; ++i) continuation += is_continuation_byte(text[i]);
  }
}

std::size_t SourceText::continuation_bytes_before(std::size_t offset) const {
  std::size_t block = offset / kBlock;
  if (block >= continuation_before_.size()) block = continuation_before_.size() - 1;
  std::size_t count = continuation_before_[block];
  for (std::size_t i = block * kBlock; i < offset; ++i) count += is_continuation_byte(text_[i]);
  return count;
}

SourcePosition SourceText::position(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::size_t index = static_cast<std::size_t>(next - line_starts_.begin()) - 1;
  const std::size_t start = line_starts_[index];
  std::size_t continuation = 0;  // in text_[start, offset): not characters of their own
  if (offset - start <= kBlock || continuation_before_.empty()) {
    for (std::size_t i = start; i < offset; ++i) continuation += is_continuation_byte(text_[i]);
  } else {
    continuation = continuation_bytes_before(offset) - continuation_bytes_before(start);
  }
  return {static_cast<int>(index) + 1, static_cast<int>(offset - start - continuation) + 1};
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
