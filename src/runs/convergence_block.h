// How a convergence comparison is shown: the per-step table, the recipe's
// `correctness.convergence` block (ready to paste), and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runs/convergence.h"

namespace openrecipes {

/// One aligned line per scored step: step, candidate, reference, relative difference,
/// tolerance, and a mark for points out of tolerance or beyond the outlier sigma.
std::string convergence_table(const ConvergenceResult& result);

/// `  convergence:` lines for the recipe (indented under `correctness`): steps, result,
/// correlation (6 decimals), final_loss_difference (2 significant digits), pointwise_failures,
/// worst_step_tolerance_ratio (3 decimals), and a note with the scored points and failures.
std::string convergence_block_yaml(const ConvergenceResult& result);

/// Everything as JSON; non-finite numbers become null.
nlohmann::ordered_json convergence_json(const ConvergenceResult& result,
                                        const LossSeries& candidate, const LossSeries& reference);

}  // namespace openrecipes
