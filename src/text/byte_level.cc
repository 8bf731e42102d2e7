#include "text/byte_level.h"

#include <unordered_map>
#include <vector>

namespace openrecipes {
namespace {

std::string utf8(std::uint32_t codepoint) {
  std::string out;
  if (codepoint < 0x80) {
    out += static_cast<char>(codepoint);
  } else if (codepoint < 0x800) {
    out += static_cast<char>(0xC0 | (codepoint >> 6));
    out += static_cast<char>(0x80 | (codepoint & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (codepoint >> 12));
    out += static_cast<char>(0x80 | ((codepoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codepoint & 0x3F));
  }
  return out;
}

// GPT-2's bytes_to_unicode (openai/gpt-2 encoder.py): printable Latin-1 bytes stand for
// themselves; the rest map, in order, to U+0100 upward.
struct Alphabet {
  std::array<std::string, 256> chars;
  std::unordered_map<std::uint32_t, std::uint8_t> bytes;
  Alphabet() {
    std::uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      bool printable =
          (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      std::uint32_t codepoint = printable ? static_cast<std::uint32_t>(b) : next++;
      chars[static_cast<std::size_t>(b)] = utf8(codepoint);
      bytes[codepoint] = static_cast<std::uint8_t>(b);
    }
  }
};

const Alphabet& alphabet() {
  static const Alphabet kAlphabet;
  return kAlphabet;
}

}  // namespace

const std::string& byte_level_char(std::uint8_t b) { return alphabet().chars[b]; }

std::optional<std::string> byte_level_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    std::uint32_t codepoint = 0;
    std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (i + length > text.size()) return std::nullopt;
    if (length == 1) {
      codepoint = lead;
    } else {
      codepoint = lead & (0x7F >> length);
      for (std::size_t k = 1; k < length; ++k) {
        codepoint = (codepoint << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
      }
    }
    auto it = alphabet().bytes.find(codepoint);
    if (it == alphabet().bytes.end()) return std::nullopt;
    out += static_cast<char>(it->second);
    i += length;
  }
  return out;
}

}  // namespace openrecipes
