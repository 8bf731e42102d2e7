// The one place the CLI prints a command's JSON result (`--format json`): every result object
// carries the version that produced it, so a saved output says which build wrote it.
#pragma once

#include <nlohmann/json.hpp>

namespace openrecipes::cli {

/// `value` with a top-level "openrecipes_version" (version.h's "X.Y.Z") added when it is an
/// object (an array, such as a list of problems, is left as it is).
nlohmann::json with_version(nlohmann::json value);
/// As above for an ordered object; the version becomes its first member.
nlohmann::ordered_json with_version(nlohmann::ordered_json value);

/// Prints with_version(value) on stdout, indented by `indent` (-1: one line), invalid UTF-8
/// replaced, and a newline.
void print_json(const nlohmann::json& value, int indent = 2);
/// As above for an ordered object.
void print_json(const nlohmann::ordered_json& value, int indent = 2);

}  // namespace openrecipes::cli
