// A problem found in a catalog file: where it is, which field, what was expected and found.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace openrecipes {

/// A 1-based line and column in a source file; line 0 means "the whole file", column 0 "the
/// whole line".
struct SourcePosition {
  int line = 0;
  int column = 0;
};

/// One problem with one field of one file. Printed as
/// `file:line:col: field: message (expected X, found Y)`; the CLI decides the format.
struct Problem {
  std::string file;  ///< path as the user named it, or relative to the catalog root
  SourcePosition position;
  std::string
      field;  ///< dotted field path, e.g. `layout.dp` or `result.window[1]`; empty for the file
  std::string rule;  ///< stable id of the check that failed, e.g. `figures.mfu`, `schema`, `yaml`
  std::string message;   ///< what is wrong, in words
  std::string expected;  ///< optional
  std::string found;     ///< optional
};

using Problems = std::vector<Problem>;

/// Formats one problem as a single line: `file:line:col: field: message (expected X, found Y)`;
/// `file: ...` for a problem with no line (about the file as a whole), `field: ...` with no file.
/// Values from the input (file, field, found) are cut at 240 bytes, the message and what was
/// expected at 4,096 (as in JSON), each with "... (N bytes in all)"; control characters print as
/// \xNN.
std::string format_problem_line(const Problem& problem);

/// The problem as a JSON object: file, line, column, field, rule, message, expected, found.
nlohmann::json problem_to_json(const Problem& problem);

/// How a command prints its results and its problems (`--format text|json`).
enum class OutputFormat { kText, kJson };

/// `problems` as every command prints them: text is one format_problem_line per line (each
/// ending in a newline; "" for none); JSON is one array of problem_to_json objects and a newline.
std::string render_problems(const Problems& problems, OutputFormat format);

}  // namespace openrecipes
