// UTF-8 validity, shared by every reader of text (YAML, templates, tokenizer input).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/problem.h"

namespace openrecipes {

/// The offset of the first byte of `text` that is not valid UTF-8 (overlong forms, surrogates
/// and code points above U+10FFFF included, as utf8proc judges), or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

/// Whether `text` (the contents of `file`, or what the user named it: "standard input") is valid
/// UTF-8. When it is not, appends a Problem (rule `utf8`) whose message is "the text is not valid
/// UTF-8 at byte offset N" and returns false.
bool check_utf8(std::string_view text, const std::string& file, Problems& problems);

}  // namespace openrecipes
