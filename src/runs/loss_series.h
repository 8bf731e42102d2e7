// Per-step loss series for the convergence comparison, from a training log, a CSV file
// (`step,loss`), or JSON: Megatron-Bridge's golden values (`{"0": {"lm loss": ...}, ...}`), a
// `{step: loss}` object, or a list of losses (step = index).
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
};

/// Reads `path`: `.csv` as CSV, `.json` as JSON, anything else as a training log
/// (training_log.h). A series that cannot be read returns nullopt with one Problem naming the
/// file and the line (CSV, log) or key (JSON, as the field) and rule `loss.*`: an unknown layout,
/// a step that is not an integer, a loss that is not a number, a step given twice, a log step
/// without a loss; a file that cannot be read is rule `file` (read_text_file).
std::optional<LossSeries> read_loss_series(const std::string& path, Problems& problems);

}  // namespace openrecipes
