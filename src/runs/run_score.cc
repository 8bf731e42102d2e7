#include "runs/run_score.h"

#include <fmt/format.h>

#include <cmath>

#include "figures/figures.h"

namespace openrecipes {

RunScore score_run(const TrainingLog& log, const ScoreSetup& setup) {
  if (setup.gpus < 1) throw ScoreError(fmt::format("GPUs: expected 1 or more, found {}", setup.gpus));
  if (setup.window_first < 0 || setup.window_last < setup.window_first) {
    throw ScoreError(fmt::format("window: expected 0 <= first <= last, found [{}, {}]", setup.window_first,
                                 setup.window_last));
  }
  if (setup.global_batch < 1 || setup.row_tokens < 1) {
    throw ScoreError("global batch and row tokens must be 1 or more");
  }
  RunScore score;
  score.steps_in_log = log.steps.empty() ? 0 : static_cast<int>(log.steps.back().step + 1);
  std::vector<double> times;
  std::string missing, untimed;
  for (int step = setup.window_first; step <= setup.window_last; ++step) {
    const StepRecord* record = nullptr;
    for (const StepRecord& candidate : log.steps) {
      if (candidate.step == step) record = &candidate;
    }
    if (!record) {
      missing += (missing.empty() ? "" : ", ") + std::to_string(step);
      continue;
    }
    if (!record->step_time_s || !std::isfinite(*record->step_time_s) || *record->step_time_s <= 0) {
      untimed += fmt::format("{}{} (line {})", untimed.empty() ? "" : ", ", step, record->line);
      continue;
    }
    times.push_back(*record->step_time_s);
  }
  if (!missing.empty()) {
    throw ScoreError(fmt::format("{}: window steps missing from the log: {} (the log reaches step {}; log every step, "
                                 "e.g. --log-interval 1, and run at least {} steps)",
                                 log.path, missing, score.steps_in_log - 1, setup.window_last + 1));
  }
  if (!untimed.empty()) {
    throw ScoreError(fmt::format("{}: window steps without a positive step time: {}", log.path, untimed));
  }
  double sum = 0;
  for (double t : times) sum += t;
  score.window_seconds = sum;
  score.mean_step_time_s = sum / static_cast<double>(times.size());
  double squares = 0;
  for (double t : times) squares += (t - score.mean_step_time_s) * (t - score.mean_step_time_s);
  double deviation = times.size() > 1 ? std::sqrt(squares / static_cast<double>(times.size() - 1)) : 0.0;
  score.step_time_cv_percent = 100.0 * deviation / score.mean_step_time_s;
  score.window_tokens = window_tokens(setup.window_first, setup.window_last, setup.global_batch, setup.row_tokens);
  score.tokens_per_s_per_gpu = static_cast<double>(score.window_tokens) / (sum * setup.gpus);

  // GPU-hours from timestamps: the first step began one step time before its line was written.
  const StepRecord& first = log.steps.front();
  const StepRecord& last = log.steps.back();
  if (first.timestamp_s && last.timestamp_s) {
    double start = *first.timestamp_s - first.step_time_s.value_or(0);
    score.first_timestamp_s = *first.timestamp_s;
    score.log_gpu_hours = setup.gpus * (*last.timestamp_s - start) / 3600.0;
  }
  return score;
}

}  // namespace openrecipes
