// The protocol's score of a measured run (docs/run-evidence.md): tokens/s per GPU over the scored
// window, the step-time CV, the window's tokens and the GPU-hours.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/protocol.h"
#include "runs/training_log.h"

namespace openrecipes {

/// What the score needs besides the log (from the recipe, or given on the command line).
struct ScoreSetup {
  int gpus = 0;                                  ///< GPUs of the run
  std::int64_t global_batch = kGlobalBatchRows;  ///< rows per step (the protocol)
  std::int64_t row_tokens = kRowTokens;          ///< tokens per row (the protocol)
  int window_first = kWindowFirstStep;           ///< first scored step, 0-based (the protocol: 5)
  int window_last = kWindowLastStep;             ///< last scored step, inclusive (the protocol: 19)
};

/// The score and the figures around it.
struct RunScore {
  double tokens_per_s_per_gpu = 0;  ///< window tokens / (sum of window step times x GPUs)
  double step_time_cv_percent =
      0;  ///< 100 x sample standard deviation / mean of the window's step times
  double mean_step_time_s = 0;
  double window_seconds = 0;  ///< sum of the window's step times, s
  std::int64_t window_tokens = 0;
  int steps_in_log = 0;  ///< the last step the log reached + 1
  /// GPUs x (first step start to last step end) from the log's timestamps, hours; nullopt when
  /// the log has none. Startup before the first step is not in it (Slurm's times are).
  std::optional<double> log_gpu_hours;
  bool gpu_hours_floored = false;  ///< the timestamps gave less than the window's own GPU time
  std::optional<double> first_timestamp_s;  ///< of the first step line, seconds since the epoch
  /// Every step's time in seconds, step 0 first, when the log times each step from 0 to its last
  /// (the recipe's `result.step_times_s`); empty when it skips one or logs averages.
  std::vector<double> step_times_s;
};

/// Scores `log` under `setup` (a window of at least 2 steps; step times from 1 us to 1 day;
/// window tokens at most 1e15). Step-time CV uses the sample standard deviation (n - 1), as a
/// measurement of a spread from 15 samples; docs/run-evidence.md defines every figure.
/// A log that cannot be scored returns nullopt with Problems (file: the log; rule `score.*`): a
/// window step missing or without a plausible step time (naming the steps and their lines), a
/// setup out of range (field `gpus`, `window`, `global_batch`, `row_tokens`).
std::optional<RunScore> score_run(const TrainingLog& log, const ScoreSetup& setup,
                                  Problems& problems);

}  // namespace openrecipes
