// GPT-2's byte-level alphabet: each byte 0-255 is shown as one printable Unicode character, so
// that a byte-level BPE vocabulary can be stored as text (tokenizers' ByteLevel, tiktoken).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openrecipes {

/// The UTF-8 text of the character that stands for byte `b` (e.g. 0x20 -> "Ġ").
const std::string& byte_level_char(std::uint8_t b);

/// Turns a vocabulary entry written in the byte-level alphabet back into the bytes it stands for.
/// Returns nullopt when `text` holds a character outside the alphabet.
std::optional<std::string> byte_level_decode(std::string_view text);

}  // namespace openrecipes
