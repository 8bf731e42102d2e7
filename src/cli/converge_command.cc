#include "cli/converge_command.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <memory>

#include "cli/problem_output.h"
#include "runs/convergence.h"
#include "runs/convergence_block.h"

namespace openrecipes::cli {
namespace {

struct ConvergeOptions {
  std::string candidate;
  std::string reference;
  ConvergenceThresholds thresholds;
  std::string format = "text";
};

int run_converge(const ConvergeOptions& options) {
  Problems problems;
  std::optional<LossSeries> candidate_read = read_loss_series(options.candidate, problems);
  std::optional<LossSeries> reference_read = read_loss_series(options.reference, problems);
  if (!candidate_read || !reference_read)
    return print_problems(problems, output_format(options.format), stderr);
  const LossSeries& candidate = *candidate_read;
  const LossSeries& reference = *reference_read;
  ConvergenceResult result = compare_convergence(candidate, reference, options.thresholds);
  if (options.format == "json") {
    fmt::print("{}\n", convergence_json(result, candidate, reference).dump(2));
  } else {
    fmt::print("# candidate {} ({}), reference {} ({})\n", candidate.path, candidate.source,
               reference.path, reference.source);
    fmt::print("{}", convergence_table(result));
    for (const std::string& failure : result.failures) fmt::print("FAIL: {}\n", failure);
    fmt::print("{}", convergence_block_yaml(result));
  }
  return result.passed ? kExitOk : kExitProblems;
}

}  // namespace

void add_converge_command(CLI::App& app, const GlobalOptions&, int& exit_code) {
  auto options = std::make_shared<ConvergeOptions>();
  CLI::App* command = app.add_subcommand(
      "converge",
      "Compare two runs' per-step losses with Megatron-Bridge's validate_convergence; prints the "
      "correctness.convergence block, exit 1 on failure");
  command
      ->add_option("CANDIDATE", options->candidate,
                   "Log, CSV (step,loss) or JSON (golden values, {step: loss}, list)")
      ->required();
  command
      ->add_option("REFERENCE", options->reference, "The reference arm, in any of the same forms")
      ->required();
  ConvergenceThresholds& t = options->thresholds;
  // NaN passes CLI11's range checks (every comparison is false) and would switch a criterion off.
  const CLI::Validator finite(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        double value = std::strtod(text.c_str(), &end);
        return *end == '\0' && std::isfinite(value)
                   ? ""
                   : "expected a finite number, found '" + text + "'";
      },
      "NUMBER");
  auto fraction = CLI::Range(0.0, 1.0) & finite;
  command->add_option("--skip-first", t.skip_first_fraction, "Leading fraction of steps not scored")
      ->capture_default_str()
      ->check(fraction);
  command->add_option("--min-correlation", t.correlation, "Minimum Pearson correlation")
      ->capture_default_str()
      ->check(finite)
      ->check(CLI::Range(-1.0, 1.0));
  command
      ->add_option("--high-loss-tolerance", t.high_loss_tolerance,
                   "Relative tolerance where the reference loss > 2.0")
      ->capture_default_str()
      ->check(finite)
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--medium-loss-tolerance", t.medium_loss_tolerance,
                   "Relative tolerance where it is > 0.5")
      ->capture_default_str()
      ->check(finite)
      ->check(CLI::NonNegativeNumber);
  command->add_option("--low-loss-tolerance", t.low_loss_tolerance, "Relative tolerance elsewhere")
      ->capture_default_str()
      ->check(finite)
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--max-outlier-ratio", t.max_outlier_ratio,
                   "Most scored points allowed out of tolerance or beyond sigma")
      ->capture_default_str()
      ->check(fraction);
  command
      ->add_option("--final-loss-tolerance", t.final_loss_tolerance,
                   "Largest relative difference of the last losses")
      ->capture_default_str()
      ->check(finite)
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--outlier-sigmas", t.outlier_sigmas,
                   "Residual outlier threshold in standard deviations")
      ->capture_default_str()
      ->check(finite)
      ->check(CLI::PositiveNumber);
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&exit_code, options] { exit_code = run_converge(*options); });
}

}  // namespace openrecipes::cli
