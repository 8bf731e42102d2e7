// Per-step loss series for the convergence comparison, from a training log, a CSV file
// (`step,loss`, or a W&B panel export: runs/wandb_csv.h), or JSON: Megatron-LM's functional-test
// golden values (`{"lm loss": {"start_step": 1, "end_step": 50, "step_interval": 5, "values":
// {"1": ..., "5": ...}}}`, tests/functional_tests/python_test_utils/common.py), Megatron-Bridge's
// golden values (`{"0": {"lm loss": ...}, ...}`), a `{step: loss}` object, or a list of losses
// (step = index). Every series is keyed by 0-based step (docs/run-evidence.md "Step numbering").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "base/problem.h"

namespace openrecipes {

/// Loss by 0-based step. NaN and Inf are kept (the comparison fails on them, naming the step).
struct LossSeries {
  std::string path;
  std::string source;  ///< what was read: "Megatron-LM log", "CSV", "golden values JSON", ...
  std::map<std::int64_t, double> loss;
  /// The series lists only some steps (golden values every step_interval steps): runs are
  /// compared at its steps alone, and the steps between are not missing.
  bool sampled = false;
};

/// Reads `path`: `.csv` as CSV, `.json` as JSON, anything else as a training log
/// (training_log.h). A series that cannot be read returns nullopt with one Problem naming the
/// file and the line (CSV, log) or key (JSON, as the field) and rule `loss.*`: an unknown layout,
/// a step that is not an integer, a loss that is not a number, a step given twice, a log step
/// without a loss, a golden-values metric without integer start_step, end_step and a positive
/// step_interval or with steps outside them (`loss.golden`), a W&B export without one loss
/// column (`loss.wandb`); a file that cannot be read is rule `file` (read_text_file).
/// Megatron-LM's golden values are keyed by iteration (TensorBoard's step): key N is 0-based
/// step N-1. Their older list form indexes TensorBoard's events from 0: value i is 0-based step
/// start_step + i x step_interval.
std::optional<LossSeries> read_loss_series(const std::string& path, Problems& problems);

}  // namespace openrecipes
