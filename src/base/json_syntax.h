// Why a text is not JSON that nlohmann::json can hold, with the line and column: a syntax error,
// or a number beyond a 64-bit float (`1e309`), which RFC 8259 section 6 lets a parser refuse and
// nlohmann::json refuses with an out_of_range exception rather than a parse_error.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/problem.h"

namespace openrecipes {

/// Where and why a JSON text cannot be read.
struct JsonSyntaxError {
  std::size_t byte = 0;     ///< 1-based byte offset of the token it stopped at
  SourcePosition position;  ///< the same place as line:column (columns count characters)
  std::string field;        ///< for a number out of range: its path, e.g. `layers[2].size`
  std::string message;      ///< "not valid JSON at byte N" or "number out of range"
  std::string expected;     ///< for a number out of range: what a number may be
  std::string found;        ///< for a number out of range: the number as written
};

/// The first reason `text` cannot be parsed by nlohmann::json::parse, or nullopt when it can
/// (parse then throws nothing). Does not check nesting depth (base/json_depth.h does).
std::optional<JsonSyntaxError> json_syntax_error(std::string_view text);

/// `error` as a Problem of `file` with rule `rule` (its field empty for a syntax error: the file
/// as a whole is not JSON).
Problem json_syntax_problem(const JsonSyntaxError& error, const std::string& file,
                            const std::string& rule);

}  // namespace openrecipes
