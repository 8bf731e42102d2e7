#include "cli/converge_command.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <memory>

#include "cli/json_output.h"
#include "cli/number_options.h"
#include "cli/problem_output.h"
#include "runs/convergence.h"
#include "runs/convergence_block.h"
#include "runs/step_offset.h"

namespace openrecipes::cli {
namespace {

struct ConvergeOptions {
  std::string candidate;
  std::string reference;
  ConvergenceThresholds thresholds;
  std::int64_t step_offset = 0;  ///< added to every reference step
  std::string format = "text";
};

// The note converge prints when the reference matches far better one step further off.
std::string offset_note(const StepOffsetHint& hint, std::int64_t applied) {
  return fmt::format(
      "the reference matches far better shifted by {:+} step (mean relative difference {:.4f} "
      "over {} steps, against {:.4f}; correlation {:.6f} against {:.6f}): one series may count "
      "Megatron's iterations from 1 (iteration N ends 0-based step N-1); if so, rerun with "
      "--step-offset {}",
      hint.offset, hint.shifted_mean_relative_difference, hint.steps, hint.mean_relative_difference,
      hint.shifted_correlation, hint.correlation, applied + hint.offset);
}

nlohmann::ordered_json offset_json(const std::optional<StepOffsetHint>& hint,
                                   std::int64_t applied) {
  nlohmann::ordered_json out = {{"applied", applied}, {"suggested", nullptr}};
  if (!hint) return out;
  auto finite = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nullptr; };
  out["suggested"] = applied + hint->offset;
  out["steps"] = hint->steps;
  out["mean_relative_difference"] = hint->mean_relative_difference;
  out["shifted_mean_relative_difference"] = hint->shifted_mean_relative_difference;
  out["correlation"] = finite(hint->correlation);
  out["shifted_correlation"] = finite(hint->shifted_correlation);
  out["note"] = offset_note(*hint, applied);
  return out;
}

int run_converge(const ConvergeOptions& options) {
  Problems problems;
  std::optional<LossSeries> candidate_read = read_loss_series(options.candidate, problems);
  std::optional<LossSeries> reference_read = read_loss_series(options.reference, problems);
  if (!candidate_read || !reference_read)
    return print_problems(problems, output_format(options.format), stderr);
  const LossSeries& candidate = *candidate_read;
  LossSeries reference = shift_steps(*reference_read, options.step_offset);
  ConvergenceResult result = compare_convergence(candidate, reference, options.thresholds);
  std::optional<StepOffsetHint> hint = detect_step_offset(candidate, reference);
  if (options.format == "json") {
    nlohmann::ordered_json out = convergence_json(result, candidate, reference);
    out["step_offset"] = offset_json(hint, options.step_offset);
    print_json(out);
  } else {
    fmt::print("# candidate {} ({}), reference {} ({})\n", candidate.path, candidate.source,
               reference.path, reference.source);
    if (hint) fmt::print("NOTE: {}\n", offset_note(*hint, options.step_offset));
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
                   "Log, CSV (step,loss or a W&B panel export) or JSON (Megatron-LM or "
                   "Megatron-Bridge golden values, {step: loss}, list)")
      ->required();
  command
      ->add_option("REFERENCE", options->reference, "The reference arm, in any of the same forms")
      ->required();
  ConvergenceThresholds& t = options->thresholds;
  // NaN passes CLI11's own range checks (every comparison is false) and would switch a
  // criterion off; real_number refuses it.
  const CLI::Validator fraction = real_number(0, 1);
  const CLI::Validator non_negative = real_number(0, std::numeric_limits<double>::infinity());
  command->add_option("--skip-first", t.skip_first_fraction, "Leading fraction of steps not scored")
      ->capture_default_str()
      ->check(fraction);
  command->add_option("--min-correlation", t.correlation, "Minimum Pearson correlation")
      ->capture_default_str()
      ->check(real_number(-1, 1));
  command
      ->add_option("--high-loss-tolerance", t.high_loss_tolerance,
                   "Relative tolerance where the reference loss > 2.0")
      ->capture_default_str()
      ->check(non_negative);
  command
      ->add_option("--medium-loss-tolerance", t.medium_loss_tolerance,
                   "Relative tolerance where it is > 0.5")
      ->capture_default_str()
      ->check(non_negative);
  command->add_option("--low-loss-tolerance", t.low_loss_tolerance, "Relative tolerance elsewhere")
      ->capture_default_str()
      ->check(non_negative);
  command
      ->add_option("--max-outlier-ratio", t.max_outlier_ratio,
                   "Most scored points allowed out of tolerance or beyond sigma")
      ->capture_default_str()
      ->check(fraction);
  command
      ->add_option("--final-loss-tolerance", t.final_loss_tolerance,
                   "Largest relative difference of the last losses")
      ->capture_default_str()
      ->check(non_negative);
  command
      ->add_option("--outlier-sigmas", t.outlier_sigmas,
                   "Residual outlier threshold in standard deviations")
      ->capture_default_str()
      ->check(positive_real_number());
  command
      ->add_option("--step-offset", options->step_offset,
                   "Add K to every reference step (-1: a reference counted from 1, as Megatron's "
                   "iterations and its golden values' keys are, against 0-based steps)")
      ->check(whole_number(-1'000'000, 1'000'000))
      ->option_text("K");
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&exit_code, options] { exit_code = run_converge(*options); });
}

}  // namespace openrecipes::cli
