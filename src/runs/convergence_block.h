// How a convergence comparison is shown: the per-step table, the recipe's
// `correctness.convergence` block (ready to paste), and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "runs/convergence.h"

namespace openrecipes {

/// One aligned line per scored step: step, candidate, reference, relative difference,
/// tolerance, and a mark for points out of tolerance or beyond the outlier sigma.
std::string convergence_table(const ConvergenceResult& result);

/// `  convergence:` lines for the recipe (indented under `correctness`): steps, result,
/// correlation (6 decimals), final_loss_difference (2 significant digits), pointwise_failures,
/// worst_step_tolerance_ratio (3 decimals), a note with the scored points and failures, and both
/// runs' loss at every step (`losses: {candidate, reference}`) when the result holds them.
std::string convergence_block_yaml(const ConvergenceResult& result);

/// The `    losses:` lines of `correctness.convergence`: both runs' loss at each step, step 0
/// first, as YAML flow lists of finite numbers (base/yaml_scalar.h).
std::string convergence_losses_yaml(std::span<const double> candidate,
                                    std::span<const double> reference);

/// Everything as JSON; non-finite numbers become null.
nlohmann::ordered_json convergence_json(const ConvergenceResult& result,
                                        const LossSeries& candidate, const LossSeries& reference);

}  // namespace openrecipes
