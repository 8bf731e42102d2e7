// A Megatron-LM `pretrain_gpt.py` command for an export source.
#pragma once

#include <string>

#include "export/export_source.h"

namespace openrecipes {

/// `torchrun ... pretrain_gpt.py` with one argument per line: the model arguments, the sequence
/// length, the layout (layout_arguments), --micro-batch-size (the layout's rows per micro-batch),
/// --global-batch-size, --train-iters 20, the precision, the optimizer and schedule, the
/// distributed optimizer, the recipe's other Megatron-LM arguments, then data, tokenizer and
/// checkpoint as variables ($DATA_PATH, $TOKENIZER, $CHECKPOINT). Comments above the command say
/// which slime-only arguments became Megatron-LM ones (--num-rollout as --train-iters, the dynamic
/// batch as --micro-batch-size) and which were dropped.
std::string megatron_lm_command(const ExportSource& source);

}  // namespace openrecipes
