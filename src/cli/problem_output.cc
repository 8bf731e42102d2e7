#include "cli/problem_output.h"

#include <fmt/format.h>

#include <string_view>

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

// Whether `field` names a flag ("--gpus", "-o") or a positional argument as its help shows it
// ("FILE", "PATH|MODEL").
bool names_an_argument(std::string_view field) {
  if (field.starts_with("-")) return field.find(' ') == std::string_view::npos;
  return !field.empty() &&
         field.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_|") == std::string_view::npos;
}

// A flag's or a positional argument's refused value, "--gpus: expected a whole number from 1 to
// 1048576, found '8abc'" (as number_options.h, refuse_flags_as_values and usage_message word it),
// as a problem with its field, expected and found; any other message as it is.
Problem usage_problem(const std::string& message) {
  const std::string kExpected = ": expected ", kFound = ", found ";
  std::size_t colon = message.find(kExpected);
  std::size_t found = message.rfind(kFound);
  if (colon == std::string::npos || found == std::string::npos ||
      found < colon + kExpected.size() ||
      !names_an_argument(std::string_view(message).substr(0, colon)))
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
