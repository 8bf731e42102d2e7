// The measurement protocol's fixed numbers, written once. schema/recipe.schema.yaml fixes the
// workload (`workload.row_tokens` const 8192, `workload.global_batch` const 128) and states the
// run (`result.steps_per_run`: 20, `result.window`: [5, 19], 0-based and inclusive);
// docs/run-evidence.md scores and measures by them. Every reader, writer and check takes them from
// here.
#pragma once

#include <cstdint>

namespace openrecipes {

/// Steps of a measured run (`--num-rollout`, `--train-iters`, `train.train_iters`).
inline constexpr int kProtocolSteps = 20;
/// First scored step, 0-based: the steps before it warm up and are not scored.
inline constexpr int kWindowFirstStep = 5;
/// Last scored step, 0-based and inclusive (the run's last step).
inline constexpr int kWindowLastStep = kProtocolSteps - 1;
/// Rows per optimizer step (workload.global_batch).
inline constexpr std::int64_t kGlobalBatchRows = 128;
/// Tokens per row, the sequence length (workload.row_tokens).
inline constexpr std::int64_t kRowTokens = 8192;

}  // namespace openrecipes
