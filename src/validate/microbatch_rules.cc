// The micro-batch and offload terms of the run command against the layout: with slime's dynamic
// batching the token budget sets the micro-batch, without it --micro-batch-size does; the
// optimizer's CPU offload flags match layout.offload.
#include <fmt/format.h>

#include <cmath>

#include "validate/run_checks.h"

namespace openrecipes {
namespace {

const std::string kMicrobatch = "run.microbatch";
const std::string kOffload = "run.offload";

// slime's dynamic batching packs each micro-batch up to --max-tokens-per-gpu x CP tokens
// (get_data_iterator in slime/backends/megatron_utils/data.py: max_tokens_per_microbatch =
// max_tokens_per_gpu * cp_size), so whole rows of row_tokens fill floor(that / row_tokens) rows.
void check_dynamic(const RunView& run, const Layout& l, std::int64_t row_tokens) {
  std::optional<RunSetting> max_tokens = run.effective({"--max-tokens-per-gpu"});
  if (!max_tokens) {
    run.report(
        kMicrobatch, std::nullopt, "layout.max_tokens_per_gpu",
        "dynamic batching (--use-dynamic-batch-size) packs by --max-tokens-per-gpu: state it",
        fmt::format("--max-tokens-per-gpu {}", l.max_tokens_per_gpu), "no such argument");
    return;
  }
  check_stated_integer(run, kMicrobatch, *max_tokens, "layout.max_tokens_per_gpu",
                       l.max_tokens_per_gpu, "--max-tokens-per-gpu");
  if (row_tokens <= 0) return;
  std::int64_t rows = l.max_tokens_per_gpu * l.cp / row_tokens;
  if (rows >= 1 && rows != l.rows_per_microbatch) {  // 0: a row does not fit (mesh.max_tokens)
    run.report(
        kMicrobatch, max_tokens, "layout.rows_per_microbatch",
        "dynamic batching fills a micro-batch with floor(max_tokens_per_gpu x cp / "
        "row_tokens) rows",
        fmt::format("{} (floor({} x {} / {}))", rows, l.max_tokens_per_gpu, l.cp, row_tokens),
        fmt::format("{}", l.rows_per_microbatch));
  }
}

// Without dynamic batching a micro-batch is --micro-batch-size rows (get_data_iterator in
// slime/backends/megatron_utils/data.py; Megatron-LM's --micro-batch-size), so the layout's token
// budget is those rows' tokens over CP.
void check_fixed(const RunView& run, const Layout& l, std::int64_t row_tokens) {
  std::optional<RunSetting> micro = run.effective({"--micro-batch-size", "train.micro_batch_size"});
  if (micro) {
    check_stated_integer(run, kMicrobatch, *micro, "layout.rows_per_microbatch",
                         l.rows_per_microbatch, "--micro-batch-size");
  } else if (run.framework() != RunFramework::kUnknown) {
    run.report(kMicrobatch, std::nullopt, "layout.rows_per_microbatch",
               "without dynamic batching the micro-batch is --micro-batch-size rows: state it",
               run.framework() == RunFramework::kBridge
                   ? fmt::format("train.micro_batch_size={}", l.rows_per_microbatch)
                   : fmt::format("--micro-batch-size {}", l.rows_per_microbatch),
               "no such argument");
  }
  if (std::optional<RunSetting> max_tokens = run.effective({"--max-tokens-per-gpu"})) {
    check_stated_integer(run, kMicrobatch, *max_tokens, "layout.max_tokens_per_gpu",
                         l.max_tokens_per_gpu, "--max-tokens-per-gpu");
  }
  std::int64_t tokens = static_cast<std::int64_t>(l.rows_per_microbatch) * row_tokens;
  if (l.cp > 0 && tokens % l.cp == 0 && tokens / l.cp != l.max_tokens_per_gpu) {
    run.context().report(
        kMicrobatch, "layout.max_tokens_per_gpu",
        "without dynamic batching a GPU holds rows_per_microbatch x row_tokens / cp tokens",
        fmt::format("{} ({} x {} / {})", tokens / l.cp, l.rows_per_microbatch, row_tokens, l.cp),
        fmt::format("{}", l.max_tokens_per_gpu));
  }
}

std::optional<double> as_number(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

void check_microbatch_terms(const RunView& run) {
  const Recipe& r = run.context().recipe;
  if (run.switch_on({"--use-dynamic-batch-size"})) {
    check_dynamic(run, r.layout, r.workload.row_tokens);
  } else {
    check_fixed(run, r.layout, r.workload.row_tokens);
  }
}

// Megatron-LM's optimizer offload: --optimizer-cpu-offload, --optimizer-offload-fraction and
// --overlap-cpu-optimizer-d2h-h2d (megatron/training/arguments.py); Megatron-Bridge's
// optimizer.* overrides of the same OptimizerConfig fields.
void check_offload(const RunView& run) {
  const std::optional<Offload>& offload = run.context().recipe.layout.offload;
  std::optional<RunSetting> on =
      run.effective({"--optimizer-cpu-offload", "optimizer.optimizer_cpu_offload"});
  bool offloads = run.switch_on({"--optimizer-cpu-offload", "optimizer.optimizer_cpu_offload"});
  if (!offload) {
    if (offloads) {
      run.report(kOffload, on, "layout.offload",
                 "the run offloads optimizer state to the CPU, the layout does not", "null",
                 "--optimizer-cpu-offload");
    }
    return;
  }
  if (!offloads) {
    run.report(kOffload, on, "layout.offload", "the run command does not offload the optimizer",
               "--optimizer-cpu-offload", on ? on->value : "no such argument");
    return;
  }
  std::optional<RunSetting> fraction =
      run.effective({"--optimizer-offload-fraction", "optimizer.optimizer_offload_fraction"});
  std::optional<double> value = fraction ? as_number(fraction->value) : std::nullopt;
  if (!value || std::fabs(*value - offload->optimizer_fraction) > 1e-9) {
    run.report(kOffload, fraction, "layout.offload.optimizer_fraction",
               "the run command must state the offloaded fraction as the layout does",
               fmt::format("--optimizer-offload-fraction {}", offload->optimizer_fraction),
               fraction ? fraction->value : "no such argument");
  }
  std::initializer_list<std::string_view> overlap = {"--overlap-cpu-optimizer-d2h-h2d",
                                                     "optimizer.overlap_cpu_optimizer_d2h_h2d"};
  if (run.switch_on(overlap) != offload->overlap_d2h_h2d) {
    run.report(kOffload, run.effective(overlap), "layout.offload.overlap_d2h_h2d",
               "the run command's --overlap-cpu-optimizer-d2h-h2d disagrees with the layout",
               offload->overlap_d2h_h2d ? "true" : "false",
               offload->overlap_d2h_h2d ? "not set" : "set");
  }
}

}  // namespace openrecipes
