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
  if (setup.window_last == setup.window_first) {
    throw ScoreError("window: a step-time CV needs at least 2 steps");
  }
  // Window tokens must fit in int64 (and be a run's, not an overflow).
  long double tokens = static_cast<long double>(setup.window_last - setup.window_first + 1) * setup.global_batch *
                       setup.row_tokens;
  if (tokens > 1e15L) {
    throw ScoreError(fmt::format("window tokens {:.3g}: expected at most 1e15 (check the batch, row tokens and window)",
                                 static_cast<double>(tokens)));
  }
  RunScore score;
  score.steps_in_log = log.steps.empty() ? 0 : static_cast<int>(log.steps.back().step + 1);
  std::vector<double> times;
  std::string missing, untimed;
  int missing_count = 0, untimed_count = 0;
  auto add = [](std::string& list, int& count, const std::string& item) {
    if (++count <= 10) list += (list.empty() ? "" : ", ") + item;
  };
  for (int step = setup.window_first; step <= setup.window_last; ++step) {
    const StepRecord* record = nullptr;
    for (const StepRecord& candidate : log.steps) {
      if (candidate.step == step) record = &candidate;
    }
    if (!record) {
      add(missing, missing_count, std::to_string(step));
      continue;
    }
    // A step of a training run takes between a microsecond and a day.
    if (!record->step_time_s || !std::isfinite(*record->step_time_s) || *record->step_time_s < 1e-6 ||
        *record->step_time_s > 86400) {
      add(untimed, untimed_count, fmt::format("{} (line {})", step, record->line));
      continue;
    }
    times.push_back(*record->step_time_s);
  }
  if (missing_count > 10) missing += fmt::format(" and {} more", missing_count - 10);
  if (untimed_count > 10) untimed += fmt::format(" and {} more", untimed_count - 10);
  if (!missing.empty()) {
    throw ScoreError(fmt::format("{}: window steps missing from the log: {} (the log reaches step {}; log every step, "
                                 "e.g. --log-interval 1, and run at least {} steps)",
                                 log.path, missing, score.steps_in_log - 1, setup.window_last + 1));
  }
  if (!untimed.empty()) {
    throw ScoreError(fmt::format("{}: window steps without a plausible step time (1 us to 1 day): {}", log.path,
                                 untimed));
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
    double hours = gpu_hours(setup.gpus, *last.timestamp_s - start);
    // Never below the window's own GPU time (seed 000): timestamps rounded to the second, or
    // clocks that jumped, can say less.
    double floor = window_gpu_hours(score.window_tokens, score.tokens_per_s_per_gpu);
    score.log_gpu_hours = std::max(hours, floor);
    score.gpu_hours_floored = hours < floor;
  }
  return score;
}

}  // namespace openrecipes
