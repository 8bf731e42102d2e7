// correctness.losses: the convergence figures recomputed from the per-step losses a recipe states,
// by the same comparison `openrecipes converge` runs (runs/convergence.h).
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "base/number_format.h"
#include "runs/convergence.h"
#include "validate/recipe_rules.h"

namespace openrecipes {
namespace {

LossSeries series(const std::string& path, const std::vector<double>& losses) {
  LossSeries out{path, "recipe", {}, false};
  for (std::size_t step = 0; step < losses.size(); ++step) {
    out.loss[static_cast<std::int64_t>(step)] = losses[step];
  }
  return out;
}

// `value` as `convergence_block_yaml` states it: 2 significant digits.
double two_significant_digits(double value) {
  return std::strtod(fmt::format("{:.2g}", value).c_str(), nullptr);
}

}  // namespace

void check_convergence_rules(const RuleContext& c) {
  const Convergence& stated = c.recipe.correctness.convergence;
  // Without both arms there is nothing to compare (the schema asks for both).
  if (stated.candidate_losses.empty() || stated.reference_losses.empty()) return;
  const std::string field = "correctness.convergence.losses";
  bool lengths_agree = true;
  for (const auto& [arm, losses] : {std::pair{"candidate", &stated.candidate_losses},
                                    std::pair{"reference", &stated.reference_losses}}) {
    if (losses->size() != static_cast<std::size_t>(stated.steps)) {
      c.report("correctness.losses", field + "." + arm,
               fmt::format("one {} loss per compared step", arm),
               fmt::format("{} (convergence.steps)", stated.steps),
               fmt::format("{} losses", losses->size()));
      lengths_agree = false;
    }
  }
  if (!lengths_agree) return;
  ConvergenceResult recomputed =
      compare_convergence(series(c.file.display_path, stated.candidate_losses),
                          series(c.file.display_path, stated.reference_losses));
  const std::string why = "disagrees with the comparison recomputed from " + field;
  std::string result = recomputed.passed ? "pass" : "fail";
  if (stated.result != result) {
    c.report("correctness.losses", "correctness.convergence.result", "the result " + why, result,
             stated.result);
  }
  // A constant series has no Pearson correlation: `converge` states null, and only null is the
  // recomputed figure then.
  const std::string stated_correlation =
      stated.correlation ? fmt::format("{}", *stated.correlation) : "null";
  if (std::isfinite(recomputed.correlation) &&
      (!stated.correlation || !equals_rounded(*stated.correlation, recomputed.correlation, 6))) {
    c.report("correctness.losses", "correctness.convergence.correlation", "the correlation " + why,
             fmt::format("{:.6f}", recomputed.correlation), stated_correlation);
  } else if (!std::isfinite(recomputed.correlation) && stated.correlation) {
    c.report("correctness.losses", "correctness.convergence.correlation", "the correlation " + why,
             "null: a constant loss series has no correlation", stated_correlation);
  }
  double final_difference = two_significant_digits(recomputed.final_loss_difference);
  if (std::fabs(stated.final_loss_difference - final_difference) >
      1e-12 + 1e-9 * std::fabs(final_difference)) {
    c.report("correctness.losses", "correctness.convergence.final_loss_difference",
             "the final loss difference " + why, fmt::format("{:.2g}", final_difference),
             fmt::format("{}", stated.final_loss_difference));
  }
  if (stated.pointwise_failures != recomputed.pointwise_failures) {
    c.report("correctness.losses", "correctness.convergence.pointwise_failures",
             "the pointwise failures " + why, std::to_string(recomputed.pointwise_failures),
             std::to_string(stated.pointwise_failures));
  }
}

}  // namespace openrecipes
