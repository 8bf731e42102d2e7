// The protocol's step count forced into a recipe's `run` command: slime's `--num-rollout`
// (one rollout is one step under the protocol), Megatron-LM's `--train-iters`, Megatron-Bridge's
// `train.train_iters=`. The file's own count is not trusted; the measured run takes exactly the
// protocol's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/problem.h"
#include "runs/run_framework.h"

namespace openrecipes {

/// A run command with its step count set.
struct ForcedStepCount {
  std::string run;   ///< the command, every step-count argument's value replaced
  std::string flag;  ///< the argument: `--num-rollout`, `--train-iters` or `train.train_iters`
  std::string recipe_value;  ///< the value the recipe gave (the last one, as argparse takes it)
  RunFramework framework = RunFramework::kMegatronLm;  ///< told by `flag` (never kUnknown)
};

/// Sets every `--num-rollout N`, `--num-rollout=N`, `--train-iters N`, `--train-iters=N` and
/// `train.train_iters=N` (Hydra's `+`/`++` prefixes included) of `run` to `steps`. The command is
/// the run's training command as runs/training_command.h reads it, variables expanded; the last
/// step-count argument written is the recipe's (argparse). Returns nullopt with a Problem (field
/// `run`, rule `measure.step_count`, the command's line where known; no file: the caller names
/// it) when the command states no step count (the count may hide in a model script: then add the
/// argument to the recipe's command) or turns the profiler on (`--profile`,
/// `--use-pytorch-profiler`), which the protocol forbids.
std::optional<ForcedStepCount> force_step_count(std::string_view run, int steps,
                                                Problems& problems);

}  // namespace openrecipes
