#include "cli/classify_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/json_output.h"
#include "cli/problem_output.h"
#include "runs/classify_report.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct ClassifyOptions {
  std::string candidate;
  std::string reference;
  std::string format = "text";
};

int run_classify(const GlobalOptions& global, const ClassifyOptions& options) {
  if (options.candidate == "-" && options.reference == "-") {
    fmt::print(
        stderr,
        "openrecipes classify: only one of CANDIDATE and REFERENCE can be - (standard input)\n");
    return kExitUsage;
  }
  std::optional<fs::path> root = resolve_root(global);
  if (!root) return kExitUsage;
  // The root relative to here opens the same files and names them as the user would.
  std::error_code ec;
  fs::path shown_root = fs::proximate(*root, fs::current_path(ec), ec);
  if (ec) shown_root = *root;

  OutputFormat format = output_format(options.format);
  Problems problems;
  std::optional<ClassifyReport> report =
      classify_files(shown_root, options.candidate, options.reference, std::cin, problems);
  // The problems are the check's outcome, on standard output as the report would be.
  if (!report) return print_problems(problems, format, stdout);
  if (format == OutputFormat::kJson) {
    print_json(classify_report_json(*report));
  } else {
    fmt::print("{}", classify_report_text(*report));
  }
  return report->result.passes() ? kExitOk : kExitProblems;
}

}  // namespace

void add_classify_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<ClassifyOptions>();
  CLI::App* command = app.add_subcommand(
      "classify",
      "Diff two training commands and class each differing argument with rules/arguments.yaml "
      "(execution, same-math swap, convergence, benign; unknown fails)");
  command
      ->add_option("CANDIDATE", options->candidate,
                   "The candidate: a recipe (.yaml, its run field), a file holding a command, or - "
                   "for stdin")
      ->required();
  command
      ->add_option("REFERENCE", options->reference,
                   "The reference it was tuned from, read the same way")
      ->required();
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_classify(global, *options); });
}

}  // namespace openrecipes::cli
