#include "runs/result_block.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

#include "base/yaml_scalar.h"
#include "figures/figures.h"

namespace openrecipes {
namespace {

std::optional<double> usd(const ResultBlock& b) {
  if (!b.usd_per_gpu_hour) return std::nullopt;
  return usd_per_million_tokens(*b.usd_per_gpu_hour, b.score.tokens_per_s_per_gpu);
}

std::optional<double> mfu(const ResultBlock& b) {
  if (!b.peak_flop_per_s || !b.active_params) return std::nullopt;
  return model_flops_utilization(*b.active_params, b.score.tokens_per_s_per_gpu,
                                 *b.peak_flop_per_s);
}

std::optional<std::string> measured_date(const ResultBlock& b) {
  if (!b.score.first_timestamp_s) return std::nullopt;
  std::time_t seconds = static_cast<std::time_t>(*b.score.first_timestamp_s);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

const char* kLogGpuHoursNote =
    "GPUs x (first step start to last step end) from the log's timestamps; startup is not in it, "
    "so use GPUs x "
    "(scheduler admission to finish) when you have it";

std::string note(const ResultBlock& b) {
  return b.score.gpu_hours_floored ? "the window's own GPU time (window tokens / tokens/s per "
                                     "GPU): the log's timestamps gave less; use GPUs x "
                                     "(scheduler admission to finish)"
                                   : kLogGpuHoursNote;
}

const char* kSchedulerGpuHoursNote = "GPUs x (scheduler admission to finish), including startup";

// The block's GPU-hours and their note: the scheduler's when given, else the log's.
std::optional<std::pair<double, std::string>> gpu_hours(const ResultBlock& b) {
  if (b.scheduler_gpu_hours) {
    double floor = window_gpu_hours(b.score.window_tokens, b.score.tokens_per_s_per_gpu);
    if (*b.scheduler_gpu_hours >= floor)
      return std::pair{*b.scheduler_gpu_hours, std::string(kSchedulerGpuHoursNote)};
    return std::pair{
        floor,
        std::string("the window's own GPU time (window tokens / tokens/s per GPU): the scheduler's "
                    "times gave less")};
  }
  if (b.score.log_gpu_hours) return std::pair{*b.score.log_gpu_hours, note(b)};
  return std::nullopt;
}

// The run's step times as the recipe states them (`result.step_times_s`): to the microsecond, one
// per step of the run; empty when the log does not time them all.
std::vector<double> stated_step_times(const ResultBlock& b) {
  if (b.score.step_times_s.size() != static_cast<std::size_t>(b.steps_per_run)) return {};
  std::vector<double> times;
  for (double t : b.score.step_times_s) times.push_back(round_to(t, 6));
  return times;
}

}  // namespace

bool add_catalog_figures(ResultBlock& block, const Catalog& catalog, const std::string& gpu_type,
                         const std::string& model, Problems& problems) {
  if (const Gpu* gpu = catalog.find_gpu(gpu_type)) {
    if (gpu->usd_per_gpu_hour > 0) block.usd_per_gpu_hour = gpu->usd_per_gpu_hour;
    block.peak_flop_per_s = gpu->peak_bf16_dense_flop_per_s;
  } else if (!gpu_type.empty()) {
    std::string known;
    for (const Gpu& listed : catalog.gpus) known += (known.empty() ? "" : ", ") + listed.type;
    problems.push_back({"",
                        {},
                        "gpu.type",
                        "score.catalog",
                        gpu_type + " is not in gpus.yaml",
                        "one of " + known,
                        ""});
    return false;
  }
  if (const Model* found = catalog.find_model(model)) {
    block.active_params = found->active_params;
  } else if (!model.empty()) {
    problems.push_back(
        {"", {}, "model", "score.catalog", model + " is not in models.yaml", "", ""});
    return false;
  }
  return true;
}

std::string result_block_yaml(const ResultBlock& b) {
  std::string out = "result:\n";
  out += fmt::format("  tokens_per_s_per_gpu: {:.2f}\n", round_to(b.score.tokens_per_s_per_gpu, 2));
  if (auto cost = usd(b)) {
    out += fmt::format("  usd_per_million_tokens: {:.2f}\n", round_to(*cost, 2));
  } else {
    out += "  # usd_per_million_tokens: needs the GPU's rate (gpus.yaml): give --recipe or --gpu\n";
  }
  out += fmt::format("  step_time_cv_percent: {:.2f}\n", round_to(b.score.step_time_cv_percent, 2));
  if (auto utilization = mfu(b)) {
    out += fmt::format("  mfu: {:.4f}\n", round_to(*utilization, 4));
  } else {
    out += "  # mfu: needs N and the GPU's peak: give --recipe, or --model and --gpu\n";
  }
  if (auto date = measured_date(b)) out += fmt::format("  measured: {}\n", *date);
  out += fmt::format("  steps_per_run: {}\n", b.steps_per_run);
  out += fmt::format("  window: [{}, {}]\n", b.setup.window_first, b.setup.window_last);
  out += fmt::format("  window_tokens: {}\n", b.score.window_tokens);
  if (std::vector<double> times = stated_step_times(b); !times.empty()) {
    out += fmt::format("  step_times_s: {}\n", yaml_number_list(times, 4));
  } else {
    out += "  # step_times_s: the log does not time every step from 0 to the last\n";
  }
  out += "  runs: 1\n";
  out += "  profiler: false\n";
  if (auto hours = gpu_hours(b)) {
    // Rounded up: a stated figure may not fall below the window's own GPU time.
    out += fmt::format("  gpu_hours: {:.2f}\n", std::ceil(hours->first * 100 - 1e-9) / 100);
    out += fmt::format("  gpu_hours_note: {}\n", yaml_scalar(hours->second));
  } else {
    out += "  # gpu_hours: the log has no timestamps; GPUs x (scheduler admission to finish)\n";
  }
  return out;
}

nlohmann::ordered_json result_block_json(const ResultBlock& b) {
  std::vector<double> times = stated_step_times(b);
  nlohmann::ordered_json out = {
      {"tokens_per_s_per_gpu", b.score.tokens_per_s_per_gpu},
      {"usd_per_million_tokens", usd(b) ? nlohmann::ordered_json(*usd(b)) : nullptr},
      {"step_time_cv_percent", b.score.step_time_cv_percent},
      {"mfu", mfu(b) ? nlohmann::ordered_json(*mfu(b)) : nullptr},
      {"measured", measured_date(b) ? nlohmann::ordered_json(*measured_date(b)) : nullptr},
      {"steps_per_run", b.steps_per_run},
      {"window", {b.setup.window_first, b.setup.window_last}},
      {"window_tokens", b.score.window_tokens},
      {"step_times_s",
       times.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(times)},
      {"window_seconds", b.score.window_seconds},
      {"mean_step_time_s", b.score.mean_step_time_s},
      {"gpus", b.setup.gpus},
      {"gpu_hours", gpu_hours(b) ? nlohmann::ordered_json(gpu_hours(b)->first) : nullptr},
      {"gpu_hours_note", gpu_hours(b) ? gpu_hours(b)->second : ""}};
  return out;
}

Problems check_result_against_recipe(const ResultBlock& b, const YamlDocument& document,
                                     const Recipe& recipe) {
  Problems problems;
  auto add = [&](const std::string& field, const std::string& message, const std::string& expected,
                 const std::string& found) {
    problems.push_back({document.file, document.position_of(field), field,
                        "score." + field.substr(field.rfind('.') + 1), message, expected, found});
  };
  const RecipeResult& r = recipe.result;
  if (!equals_rounded(r.tokens_per_s_per_gpu, b.score.tokens_per_s_per_gpu, 2)) {
    add("result.tokens_per_s_per_gpu", "does not match the log's score",
        fmt::format("{:.2f} ({} tokens / ({:.3f} s x {} GPUs))",
                    round_to(b.score.tokens_per_s_per_gpu, 2), b.score.window_tokens,
                    b.score.window_seconds, b.setup.gpus),
        fmt::format("{}", r.tokens_per_s_per_gpu));
  }
  if (!equals_rounded(r.step_time_cv_percent, b.score.step_time_cv_percent, 2)) {
    add("result.step_time_cv_percent", "does not match the log's step times",
        fmt::format("{:.2f}", round_to(b.score.step_time_cv_percent, 2)),
        fmt::format("{}", r.step_time_cv_percent));
  }
  if (r.window_tokens != b.score.window_tokens) {
    add("result.window_tokens", "does not match the window", std::to_string(b.score.window_tokens),
        std::to_string(r.window_tokens));
  }
  if (r.steps_per_run != b.steps_per_run) {
    add("result.steps_per_run", "does not match the log", std::to_string(b.steps_per_run),
        std::to_string(r.steps_per_run));
  }
  if (b.score.log_gpu_hours && r.gpu_hours + 0.005 < *b.score.log_gpu_hours) {
    add("result.gpu_hours", "is less than the log's steps alone took",
        fmt::format("at least {:.2f}", *b.score.log_gpu_hours), fmt::format("{}", r.gpu_hours));
  }
  return problems;
}

}  // namespace openrecipes
