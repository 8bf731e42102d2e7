#include "base/problem.h"

#include <fmt/format.h>

namespace openrecipes {

namespace {

// A value from the input (a file name, a field, what was found) is cut at this many bytes, so a
// problem line stays readable when a value runs to thousands of characters; what the program says
// (the message, what it expected, e.g. every supported model_type) is cut only where JSON cuts it.
constexpr std::size_t kLongestInputValue = 240;
constexpr std::size_t kLongestOwnText = 4096;

// Control characters never reach the terminal raw: a value could otherwise move the cursor or
// clear the screen. Shown as \xNN; other bytes (UTF-8 text) pass through.
std::string printable(const std::string& full, std::size_t longest = kLongestInputValue) {
  std::string text = full;
  if (text.size() > longest) {
    std::size_t cut = longest;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
      --cut;  // whole characters
    text = text.substr(0, cut) + fmt::format("... ({} bytes in all)", full.size());
  }
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

std::string format_problem_line(const Problem& problem) {
  // A problem with no file (a command-line flag's value) has no position to print, and one about
  // a whole file (line 0: missing, unreadable, not Parquet) names the file alone, as compilers do.
  // A problem with a line and no column (a whole line of a log) prints `file:line:`.
  std::string out;
  if (!problem.file.empty() && problem.position.line > 0 && problem.position.column > 0) {
    out = fmt::format("{}:{}:{}: ", printable(problem.file), problem.position.line,
                      problem.position.column);
  } else if (!problem.file.empty() && problem.position.line > 0) {
    out = fmt::format("{}:{}: ", printable(problem.file), problem.position.line);
  } else if (!problem.file.empty()) {
    out = printable(problem.file) + ": ";
  }
  if (!problem.field.empty()) out += printable(problem.field) + ": ";
  out += printable(problem.message, kLongestOwnText);
  std::string expected = printable(problem.expected, kLongestOwnText),
              found = printable(problem.found);
  if (!expected.empty() && !found.empty()) {
    out += fmt::format(" (expected {}, found {})", expected, found);
  } else if (!expected.empty()) {
    out += fmt::format(" (expected {})", expected);
  } else if (!found.empty()) {
    out += fmt::format(" (found {})", found);
  }
  return out;
}

nlohmann::json problem_to_json(const Problem& problem) {
  auto cut = [](const std::string& text) {
    return text.size() > kLongestOwnText
               ? text.substr(0, kLongestOwnText) + fmt::format("... ({} bytes in all)", text.size())
               : text;
  };
  return {{"file", problem.file},
          {"line", problem.position.line},
          {"column", problem.position.column},
          {"field", cut(problem.field)},
          {"rule", problem.rule},
          {"message", cut(problem.message)},
          {"expected", cut(problem.expected)},
          {"found", cut(problem.found)}};
}

std::string render_problems(const Problems& problems, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    nlohmann::json array = nlohmann::json::array();
    for (const Problem& problem : problems) array.push_back(problem_to_json(problem));
    return array.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  std::string out;
  for (const Problem& problem : problems) out += format_problem_line(problem) + "\n";
  return out;
}

}  // namespace openrecipes
