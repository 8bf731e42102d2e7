// A guard for JSON read with nlohmann::json, whose recursive parser overflows the stack on deeply
// nested input (100,000 `[`): callers check the depth before parsing.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace openrecipes {

/// Deepest nesting the project's JSON inputs need (conversations, loss series, configs) with room
/// to spare.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// The byte offset where `text` first nests `[`/`{` deeper than `max_depth` (outside strings), or
/// nullopt when it never does.
std::optional<std::size_t> json_too_deep(std::string_view text,
                                         std::size_t max_depth = kMaxJsonDepth);

}  // namespace openrecipes
