// Series offset by a step: shifting a series' steps (converge's --step-offset) and noticing when
// two runs' losses match far better one step apart, as when one series counts Megatron's
// iterations (from 1) and the other 0-based steps (docs/run-evidence.md "Step numbering").
#pragma once

#include <cstdint>
#include <optional>

#include "runs/loss_series.h"

namespace openrecipes {

/// `series` with every step moved by `offset` (step s becomes s + offset); steps that would fall
/// below 0 are dropped. The source says the shift (`, steps shifted by -1`).
LossSeries shift_steps(const LossSeries& series, std::int64_t offset);

/// Evidence that the reference is one step off the candidate.
struct StepOffsetHint {
  std::int64_t offset = 0;  ///< the shift of the reference (-1 or +1) that matches far better
  std::int64_t steps = 0;   ///< steps compared when shifted
  double mean_relative_difference = 0;          ///< mean |c - r| / |r| as given
  double shifted_mean_relative_difference = 0;  ///< the same, the reference shifted by `offset`
  double correlation = 0;                       ///< Pearson's r as given (NaN: undefined)
  double shifted_correlation = 0;               ///< and shifted
};

/// Compares the runs as given with the reference shifted by -1 and +1 over the steps both have
/// (finite losses, at least 4 steps either way). Returns the shift whose mean relative difference
/// is less than half the unshifted one, where the unshifted one is above 0.5% (runs that already
/// agree that well are not one step off) and the correlation is not lower; else nullopt.
std::optional<StepOffsetHint> detect_step_offset(const LossSeries& candidate,
                                                 const LossSeries& reference);

}  // namespace openrecipes
