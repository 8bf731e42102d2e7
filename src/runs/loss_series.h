// Per-step loss series for the convergence comparison, from a training log, a CSV file
// (`step,loss`), or JSON: Megatron-Bridge's golden values (`{"0": {"lm loss": ...}, ...}`), a
// `{step: loss}` object, or a list of losses (step = index).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace openrecipes {

/// A series that cannot be read: an unknown layout, a step that is not an integer, a loss that is
/// not a number, a step given twice. The message names the file and the line or key.
class LossSeriesError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Loss by 0-based step. NaN and Inf are kept (the comparison fails on them, naming the step).
struct LossSeries {
  std::string path;
  std::string source;  ///< what was read: "Megatron-LM log", "CSV", "golden values JSON", ...
  std::map<std::int64_t, double> loss;
};

/// Reads `path`: `.csv` as CSV, `.json` as JSON, anything else as a training log
/// (training_log.h). Throws LossSeriesError.
LossSeries read_loss_series(const std::string& path);

}  // namespace openrecipes
