// Rules recomputing the result's figures (cost, MFU, window, GPU-hours, the score from the step
// times) from src/figures.
#include <fmt/format.h>

#include <cmath>
#include <span>

#include "figures/figures.h"
#include "validate/recipe_rules.h"

namespace openrecipes {
namespace {

void check_cost(const RuleContext& c, const Gpu& gpu) {
  const RecipeResult& r = c.recipe.result;
  double usd = usd_per_million_tokens(gpu.usd_per_gpu_hour, r.tokens_per_s_per_gpu);
  if (!equals_rounded(r.usd_per_million_tokens, usd, 2)) {
    c.report("figures.cost", "result.usd_per_million_tokens",
             "cost disagrees with gpus.yaml's rate and the score",
             fmt::format("{:.2f} ({} USD/h / ({} tokens/s x 3600) x 1e6 = {:.4f})",
                         round_to(usd, 2), gpu.usd_per_gpu_hour, r.tokens_per_s_per_gpu, usd),
             fmt::format("{}", r.usd_per_million_tokens));
  }
}

void check_cost_and_mfu(const RuleContext& c, const Gpu& gpu) {
  const RecipeResult& r = c.recipe.result;
  if (gpu.usd_per_gpu_hour <= 0) {
    c.report("figures.cost", "gpu.type",
             fmt::format("gpus.yaml gives {} no rate, so the cost cannot be computed", gpu.type),
             "a GPU type with usd_per_gpu_hour", gpu.type);
  } else {
    check_cost(c, gpu);
  }
  if (!r.mfu) {
    if (r.mfu_note.empty()) {
      c.report("figures.mfu", "result.mfu_note", "mfu is null, so mfu_note must say why",
               "a reason", "null");
    }
    return;
  }
  double mfu = model_flops_utilization(r.active_params.count, r.tokens_per_s_per_gpu,
                                       gpu.peak_bf16_dense_flop_per_s);
  if (!equals_rounded(*r.mfu, mfu, 4)) {
    c.report(
        "figures.mfu", "result.mfu", "MFU disagrees with N, the score and the GPU's peak",
        fmt::format("{:.4f} (6 x {} x {} / {:g} = {:.6f})", round_to(mfu, 4), r.active_params.count,
                    r.tokens_per_s_per_gpu, gpu.peak_bf16_dense_flop_per_s, mfu),
        fmt::format("{}", *r.mfu));
  }
}

void check_window(const RuleContext& c) {
  const RecipeResult& r = c.recipe.result;
  const Workload& w = c.recipe.workload;
  if (r.window_first < 0 || r.window_first > r.window_last || r.window_last > r.steps_per_run - 1) {
    c.report("figures.window", "result.window",
             "the window must lie inside the run's steps, first <= last",
             fmt::format("[first, last] within [0, {}]", r.steps_per_run - 1),
             fmt::format("[{}, {}]", r.window_first, r.window_last));
    return;
  }
  std::int64_t tokens = window_tokens(r.window_first, r.window_last, w.global_batch, w.row_tokens);
  if (tokens != r.window_tokens) {
    c.report("figures.window_tokens", "result.window_tokens",
             "window_tokens must be (last - first + 1) x global_batch x row_tokens",
             fmt::format("{} ({} x {} x {})", tokens, r.window_last - r.window_first + 1,
                         w.global_batch, w.row_tokens),
             fmt::format("{}", r.window_tokens));
    return;
  }
  double floor_hours = window_gpu_hours(tokens, r.tokens_per_s_per_gpu);
  if (r.gpu_hours + 0.005 < floor_hours) {  // gpu_hours is stated to 2 decimals
    c.report("figures.gpu_hours", "result.gpu_hours",
             "gpu_hours is less than the GPU time of the scored window alone",
             fmt::format("at least {:.2f} ({} tokens / {} tokens/s / 3600)", floor_hours, tokens,
                         r.tokens_per_s_per_gpu),
             fmt::format("{}", r.gpu_hours));
  }
}

// result.step_times_s, when stated: one per step, and the window's times give the stated score
// and CV. A step time printed to the microsecond (runs/result_block.h) moves the score by a part
// in 1e6 at most, so the comparison allows that much beside the 2 stated decimals.
void check_step_times(const RuleContext& c) {
  const RecipeResult& r = c.recipe.result;
  if (r.step_times_s.empty()) return;
  if (r.step_times_s.size() != static_cast<std::size_t>(r.steps_per_run)) {
    c.report("figures.step_times", "result.step_times_s", "one step time per step of the run",
             fmt::format("{} (steps_per_run)", r.steps_per_run),
             fmt::format("{} times", r.step_times_s.size()));
    return;
  }
  if (r.window_first < 0 || r.window_first > r.window_last || r.window_last >= r.steps_per_run)
    return;  // figures.window names it
  std::span<const double> window(r.step_times_s.data() + r.window_first,
                                 static_cast<std::size_t>(r.window_last - r.window_first + 1));
  WindowStepTimes stats = window_step_times(window);
  double score = tokens_per_s_per_gpu(r.window_tokens, stats.window_seconds, c.recipe.gpu.count);
  if (std::fabs(score - r.tokens_per_s_per_gpu) > 0.005 + 1e-6 * score) {
    c.report("figures.step_times", "result.tokens_per_s_per_gpu",
             "the score disagrees with the window's step times in result.step_times_s",
             fmt::format("{:.2f} ({} tokens / ({:.6f} s x {} GPUs), steps {}-{})",
                         round_to(score, 2), r.window_tokens, stats.window_seconds,
                         c.recipe.gpu.count, r.window_first, r.window_last),
             fmt::format("{}", r.tokens_per_s_per_gpu));
  }
  if (std::fabs(stats.cv_percent - r.step_time_cv_percent) > 0.005 + 1e-4) {
    c.report("figures.step_times", "result.step_time_cv_percent",
             "the step-time CV disagrees with the window's step times in result.step_times_s",
             fmt::format("{:.2f} (100 x sample standard deviation / mean of steps {}-{})",
                         round_to(stats.cv_percent, 2), r.window_first, r.window_last),
             fmt::format("{}", r.step_time_cv_percent));
  }
}

}  // namespace

void check_figure_rules(const RuleContext& context) {
  // A planned draft has no measured result (and maybe no rows yet): nothing to recompute.
  if (context.recipe.status == "planned") return;
  if (const Gpu* gpu = context.catalog.find_gpu(context.recipe.gpu.type)) {
    check_cost_and_mfu(context, *gpu);
  }
  check_window(context);
  check_step_times(context);
  const Workload& w = context.recipe.workload;
  if (w.dataset.build.row_tokens != w.row_tokens) {
    context.report("workload.rows", "workload.dataset.build.row_tokens",
                   "the rows were built for another row length", fmt::format("{}", w.row_tokens),
                   fmt::format("{}", w.dataset.build.row_tokens));
  }
}

}  // namespace openrecipes
