// The catalog's derived figures. Each formula lives here once; the validator, the site and the
// planner all call these functions. Source of every formula: the submission guide
// (templates/submit.mustache) and the schema's descriptions (schema/recipe.schema.yaml).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "base/number_format.h"  // round_to, equals_rounded: the catalog's rounding

namespace openrecipes {

/// Data-parallel size: GPUs / (TP x PP x CP). Returns nullopt when the product does not divide
/// the GPU count (or any size is below 1). The submission guide: `dp = gpu.count / (tp x pp x cp)`.
std::optional<int> data_parallel_size(int gpus, int tp, int pp, int cp);

/// Cost in USD per 1M tokens: rate (USD per GPU-hour) / (tokens/s per GPU x 3600 s/h) x 1e6.
/// Unrounded; the catalog states it to the cent. schema/recipe.schema.yaml,
/// `usd_per_million_tokens`.
double usd_per_million_tokens(double usd_per_gpu_hour, double tokens_per_s_per_gpu);

/// Model FLOPs utilization, a fraction of peak: 6 x N x (tokens/s per GPU) / peak FLOP/s, with
/// N the active parameters per token. 6N FLOP per trained token (forward 2N + backward 4N) is the
/// standard estimate of Kaplan et al. 2020 (arXiv:2001.08361) and the PaLM paper's MFU
/// (arXiv:2204.02311, appendix B); attention FLOPs are left out. Unrounded; the catalog states it
/// to 4 decimals. schema/recipe.schema.yaml, `mfu`.
double model_flops_utilization(std::int64_t active_params, double tokens_per_s_per_gpu,
                               double peak_flop_per_s);

/// Nodes a run of `gpus` GPUs spans at `per_node` GPUs per node: gpus / per_node, or 1 when
/// per_node is unknown (0) or above gpus (part of one node). Callers that need whole nodes check
/// that per_node divides gpus (layout rule gpu.per_node).
int node_count(int gpus, int per_node);

/// GPU-hours of `gpus` GPUs over `seconds` of wall time: gpus x seconds / 3600 (the scheduler's
/// or the log's span; docs/run-evidence.md, gpu_hours).
double gpu_hours(int gpus, double seconds);

/// Tokens in the scored window [first, last] (inclusive steps):
/// (last - first + 1) x global batch (rows) x row tokens. The submission guide: 15 x 128 x 8,192 =
/// 15,728,640.
std::int64_t window_tokens(int first_step, int last_step, std::int64_t global_batch,
                           std::int64_t row_tokens);

/// GPU-hours the scored window alone took, summed over all GPUs: window tokens / (tokens/s per GPU)
/// / 3600. Follows from the score's definition, tokens/s per GPU = window tokens / (window seconds
/// x GPUs). A run's gpu_hours can never be less.
double window_gpu_hours(std::int64_t window_tokens, double tokens_per_s_per_gpu);

/// The step-time figures of a scored window, from its step times in seconds (docs/run-evidence.md).
struct WindowStepTimes {
  double window_seconds = 0;    ///< sum of the window's step times, s
  double mean_step_time_s = 0;  ///< their mean, s
  double cv_percent = 0;        ///< 100 x sample standard deviation (n - 1) / mean; 0 for 1 step
};

/// Sums `step_times_s` (the window's steps, seconds each, at least one, all positive) and
/// computes their mean and CV. The CV's sample standard deviation (divisor n - 1) treats the 15
/// scored steps as a sample of the run's step time (docs/run-evidence.md, step-time CV).
WindowStepTimes window_step_times(std::span<const double> step_times_s);

/// The score: window tokens / (window seconds x GPUs), in tokens/s per GPU (the submission
/// guide's definition; schema/recipe.schema.yaml, `tokens_per_s_per_gpu`).
double tokens_per_s_per_gpu(std::int64_t window_tokens, double window_seconds, int gpus);

}  // namespace openrecipes
