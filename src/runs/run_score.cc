#include "runs/run_score.h"

#include <fmt/format.h>

#include <cmath>

#include "figures/figures.h"

namespace openrecipes {

namespace {

// The setup's own checks; appends a Problem (file: the log) for each value out of range.
bool check_setup(const TrainingLog& log, const ScoreSetup& setup, Problems& problems) {
  std::size_t before = problems.size();
  auto problem = [&](const char* field, std::string message, std::string expected = "",
                     std::string found = "") {
    problems.push_back({log.path,
                        {},
                        field,
                        "score.setup",
                        std::move(message),
                        std::move(expected),
                        std::move(found)});
  };
  if (setup.gpus < 1) problem("gpus", "GPUs of the run", "1 or more", std::to_string(setup.gpus));
  if (setup.window_first < 0 || setup.window_last < setup.window_first) {
    problem("window", "the scored window", "0 <= first <= last",
            fmt::format("[{}, {}]", setup.window_first, setup.window_last));
  } else if (setup.window_last == setup.window_first) {
    problem("window", "a step-time CV needs at least 2 steps");
  }
  if (setup.global_batch < 1 || setup.row_tokens < 1) {
    problem("global_batch", "global batch and row tokens must be 1 or more");
  }
  if (problems.size() > before) return false;
  // Window tokens must fit in int64 (and be a run's, not an overflow).
  long double tokens = static_cast<long double>(setup.window_last - setup.window_first + 1) *
                       setup.global_batch * setup.row_tokens;
  if (tokens > 1e15L) {
    problem("window",
            fmt::format("window tokens {:.3g}: check the batch, row tokens and window",
                        static_cast<double>(tokens)),
            "at most 1e15");
    return false;
  }
  return true;
}

// A step of a training run takes between a microsecond and a day.
bool plausible_step_time(std::optional<double> seconds) {
  return seconds && std::isfinite(*seconds) && *seconds >= 1e-6 && *seconds <= 86400;
}

// The window's step times in step order, or nullopt with a Problem naming the steps missing from
// the log or without a plausible time (1 us to 1 day, with their lines).
std::optional<std::vector<double>> window_times_from_log(const TrainingLog& log,
                                                         const ScoreSetup& setup, int steps_in_log,
                                                         Problems& problems) {
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
    if (!plausible_step_time(record->step_time_s)) {
      add(untimed, untimed_count, fmt::format("{} (line {})", step, record->line));
      continue;
    }
    times.push_back(*record->step_time_s);
  }
  if (missing_count > 10) missing += fmt::format(" and {} more", missing_count - 10);
  if (untimed_count > 10) untimed += fmt::format(" and {} more", untimed_count - 10);
  if (!missing.empty()) {
    problems.push_back(
        {log.path,
         {},
         "",
         "score.window",
         fmt::format(
             "window steps missing from the log: {} (the log reaches step {}; log every step, "
             "e.g. --log-interval 1, and run at least {} steps)",
             missing, steps_in_log - 1, setup.window_last + 1),
         "",
         ""});
  }
  if (!untimed.empty()) {
    problems.push_back(
        {log.path,
         {},
         "",
         "score.step_time",
         fmt::format("window steps without a plausible step time (1 us to 1 day): {}", untimed),
         "",
         ""});
  }
  if (!missing.empty() || !untimed.empty()) return std::nullopt;
  return times;
}

// Every step's time, step 0 first, when the log times each of its steps 0 .. steps_in_log - 1
// plausibly (1 us to 1 day); empty otherwise (a log that skips steps or logs averages).
std::vector<double> every_step_time(const TrainingLog& log, int steps_in_log) {
  std::vector<double> times;
  if (log.steps.size() != static_cast<std::size_t>(steps_in_log)) return {};
  for (const StepRecord& record : log.steps) {  // sorted by step, one per step
    if (record.step != static_cast<std::int64_t>(times.size()) ||
        !plausible_step_time(record.step_time_s))
      return {};
    times.push_back(*record.step_time_s);
  }
  return times;
}

}  // namespace

std::optional<RunScore> score_run(const TrainingLog& log, const ScoreSetup& setup,
                                  Problems& problems) {
  if (!check_setup(log, setup, problems)) return std::nullopt;
  RunScore score;
  score.steps_in_log = log.steps.empty() ? 0 : static_cast<int>(log.steps.back().step + 1);
  std::optional<std::vector<double>> window =
      window_times_from_log(log, setup, score.steps_in_log, problems);
  if (!window) return std::nullopt;
  WindowStepTimes stats = window_step_times(*window);
  score.window_seconds = stats.window_seconds;
  score.mean_step_time_s = stats.mean_step_time_s;
  score.step_time_cv_percent = stats.cv_percent;
  score.window_tokens =
      window_tokens(setup.window_first, setup.window_last, setup.global_batch, setup.row_tokens);
  score.tokens_per_s_per_gpu =
      tokens_per_s_per_gpu(score.window_tokens, score.window_seconds, setup.gpus);
  score.step_times_s = every_step_time(log, score.steps_in_log);

  // GPU-hours from timestamps: the first step began one step time before its line was written.
  const StepRecord& first = log.steps.front();
  const StepRecord& last = log.steps.back();
  if (first.timestamp_s && last.timestamp_s) {
    double start = *first.timestamp_s - first.step_time_s.value_or(0);
    score.first_timestamp_s = *first.timestamp_s;
    double hours = gpu_hours(setup.gpus, *last.timestamp_s - start);
    // Never below the window's own GPU time (docs/run-evidence.md): timestamps rounded to the
    // second, or clocks that jumped, can say less.
    double floor = window_gpu_hours(score.window_tokens, score.tokens_per_s_per_gpu);
    score.log_gpu_hours = std::max(hours, floor);
    score.gpu_hours_floored = hours < floor;
  }
  return score;
}

}  // namespace openrecipes
