#include "catalog/problem.h"

#include <fmt/format.h>

namespace openrecipes {

std::string format_problem_line(const Problem& problem) {
  std::string out = fmt::format("{}:{}:{}: ", problem.file, problem.position.line,
                                problem.position.column);
  if (!problem.field.empty()) out += problem.field + ": ";
  out += problem.message;
  if (!problem.expected.empty() && !problem.found.empty()) {
    out += fmt::format(" (expected {}, found {})", problem.expected, problem.found);
  } else if (!problem.expected.empty()) {
    out += fmt::format(" (expected {})", problem.expected);
  } else if (!problem.found.empty()) {
    out += fmt::format(" (found {})", problem.found);
  }
  return out;
}

nlohmann::json problem_to_json(const Problem& problem) {
  return {{"file", problem.file},         {"line", problem.position.line},
          {"column", problem.position.column}, {"field", problem.field},
          {"rule", problem.rule},         {"message", problem.message},
          {"expected", problem.expected}, {"found", problem.found}};
}

}  // namespace openrecipes
