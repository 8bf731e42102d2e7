#include "cli/problem_output.h"

#include <fmt/format.h>

#include "cli/cli_options.h"

namespace openrecipes::cli {

OutputFormat output_format(const std::string& flag) {
  return flag == "json" ? OutputFormat::kJson : OutputFormat::kText;
}

int print_problems(const Problems& problems, OutputFormat format, std::FILE* to) {
  fmt::print(to, "{}", render_problems(problems, format));
  return problems.empty() ? kExitOk : kExitProblems;
}

namespace {

// A flag's refused value, "--gpus: expected a whole number from 1 to 1048576, found '8abc'" (as
// number_options.h, refuse_flags_as_values and usage_message word it), as a problem with its
// field, expected and found; any other message as it is.
Problem usage_problem(const std::string& message) {
  const std::string kExpected = ": expected ", kFound = ", found ";
  std::size_t colon = message.find(kExpected);
  std::size_t found = message.rfind(kFound);
  if (!message.starts_with("-") || colon == std::string::npos || found == std::string::npos ||
      found < colon + kExpected.size() || message.find(' ') < colon)
    return {"", {}, "", "usage", message, "", ""};
  return {"",
          {},
          message.substr(0, colon),
          "usage",
          message,
          message.substr(colon + kExpected.size(), found - colon - kExpected.size()),
          message.substr(found + kFound.size())};
}

}  // namespace

int print_usage_error(const std::string& command, const std::string& message, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    print_problems({usage_problem(message)}, format);
  } else {
    fmt::print(stderr, "{}: {}\n", command, message);
  }
  return kExitUsage;
}

}  // namespace openrecipes::cli
