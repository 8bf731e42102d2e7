// Which framework a run command starts (slime, Megatron-LM or Megatron-Bridge), told from its
// program and arguments: validate's run rules read each framework's defaults by it, and recommend
// names the framework to export to.
#pragma once

#include <string>

#include "runs/training_command.h"

namespace openrecipes {

/// The framework a run command starts; their defaults differ.
enum class RunFramework {
  kSlime,       ///< THUDM/slime: `train.py`, `train_async.py`, its entry module, or slime's own
                ///< flags (`--actor-num-nodes`, `--rollout-batch-size`)
  kMegatronLm,  ///< NVIDIA/Megatron-LM: `pretrain_gpt.py`, `pretrain_mamba.py`, ...
  kBridge,      ///< NVIDIA-NeMo/Megatron-Bridge: Hydra overrides `model.x=`, `train.x=`
  kUnknown,     ///< none of these: only what the command states is checked
};

/// The framework's name as the problems print it.
std::string framework_name(RunFramework framework);

/// Tells the framework from the program and the arguments (see RunFramework).
RunFramework detect_framework(const TrainingCommand& command);

}  // namespace openrecipes
