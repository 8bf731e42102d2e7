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

}  // namespace openrecipes::cli
