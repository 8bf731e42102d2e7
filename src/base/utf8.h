// UTF-8 validity, shared by every reader of text (YAML, templates, tokenizer input).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace openrecipes {

/// The offset of the first byte of `text` that is not valid UTF-8 (overlong forms, surrogates
/// and code points above U+10FFFF included, as utf8proc judges), or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace openrecipes
