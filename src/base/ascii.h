// ASCII case folding, for names, extensions and hex digits compared case aside. Bytes outside
// A-Z (UTF-8 included) pass through unchanged, whatever the C locale.
#pragma once

#include <string>
#include <string_view>

namespace openrecipes {

/// `c` with A-Z mapped to a-z; every other byte unchanged.
char ascii_lower(char c);

/// Whether `c` is one of 0-9, whatever the C locale (std::isdigit reads the locale and is
/// undefined for negative `char`s).
constexpr bool ascii_digit(char c) { return c >= '0' && c <= '9'; }

/// `text` with A-Z mapped to a-z; every other byte, UTF-8 sequences included, unchanged.
std::string ascii_lowercase(std::string_view text);

}  // namespace openrecipes
