#include "base/utf8.h"

#include <fmt/format.h>
#include <utf8proc.h>

namespace openrecipes {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    utf8proc_int32_t codepoint = 0;
    utf8proc_ssize_t length =
        utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + i),
                         static_cast<utf8proc_ssize_t>(n - i), &codepoint);
    if (length <= 0) return i;
    i += static_cast<std::size_t>(length);
  }
  return std::nullopt;
}

bool check_utf8(std::string_view text, const std::string& file, Problems& problems) {
  std::optional<std::size_t> bad = first_invalid_utf8(text);
  if (!bad) return true;
  problems.push_back(Problem{file,
                             {},
                             "",
                             "utf8",
                             fmt::format("the text is not valid UTF-8 at byte offset {}", *bad),
                             "",
                             ""});
  return false;
}

}  // namespace openrecipes
