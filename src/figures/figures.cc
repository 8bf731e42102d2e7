#include "figures/figures.h"

#include <cmath>

namespace openrecipes {
namespace {
constexpr double kSecondsPerHour = 3600.0;
}  // namespace

std::optional<int> data_parallel_size(int gpus, int tp, int pp, int cp) {
  if (gpus < 1 || tp < 1 || pp < 1 || cp < 1) return std::nullopt;
  std::int64_t model_parallel = static_cast<std::int64_t>(tp) * pp * cp;
  if (gpus % model_parallel != 0) return std::nullopt;
  return static_cast<int>(gpus / model_parallel);
}

double usd_per_million_tokens(double usd_per_gpu_hour, double tokens_per_s_per_gpu) {
  return usd_per_gpu_hour / (tokens_per_s_per_gpu * kSecondsPerHour) * 1e6;
}

double model_flops_utilization(std::int64_t active_params, double tokens_per_s_per_gpu,
                               double peak_flop_per_s) {
  return 6.0 * static_cast<double>(active_params) * tokens_per_s_per_gpu / peak_flop_per_s;
}

std::int64_t window_tokens(int first_step, int last_step, std::int64_t global_batch,
                           std::int64_t row_tokens) {
  return static_cast<std::int64_t>(last_step - first_step + 1) * global_batch * row_tokens;
}

double window_gpu_hours(std::int64_t window_tokens, double tokens_per_s_per_gpu) {
  return static_cast<double>(window_tokens) / tokens_per_s_per_gpu / kSecondsPerHour;
}

int node_count(int gpus, int per_node) {
  return per_node > 0 && gpus >= per_node ? gpus / per_node : 1;
}

double gpu_hours(int gpus, double seconds) { return gpus * seconds / kSecondsPerHour; }

WindowStepTimes window_step_times(std::span<const double> step_times_s) {
  WindowStepTimes out;
  if (step_times_s.empty()) return out;
  for (double t : step_times_s) out.window_seconds += t;
  const auto n = static_cast<double>(step_times_s.size());
  out.mean_step_time_s = out.window_seconds / n;
  double squares = 0;
  for (double t : step_times_s) {
    squares += (t - out.mean_step_time_s) * (t - out.mean_step_time_s);
  }
  double deviation = step_times_s.size() > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  out.cv_percent = 100.0 * deviation / out.mean_step_time_s;
  return out;
}

double tokens_per_s_per_gpu(std::int64_t window_tokens, double window_seconds, int gpus) {
  return static_cast<double>(window_tokens) / (window_seconds * gpus);
}

}  // namespace openrecipes
