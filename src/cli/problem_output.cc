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

int print_usage_error(const std::string& command, const std::string& message, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    print_problems({{"", {}, "", "usage", message, "", ""}}, format);
  } else {
    fmt::print(stderr, "{}: {}\n", command, message);
  }
  return kExitUsage;
}

}  // namespace openrecipes::cli
