// A Megatron-LM `pretrain_gpt.py` command for an export source.
#pragma once

#include <string>

#include "export/export_source.h"

namespace openrecipes {

/// `torchrun ... pretrain_gpt.py` with one argument per line: the model arguments, the sequence
/// length, the layout (layout_arguments), --micro-batch-size (the layout's rows per micro-batch),
/// --global-batch-size, --train-iters 20, the precision, the optimizer and schedule, the
/// distributed optimizer, the recipe's other Megatron-LM arguments, then data, tokenizer and
/// checkpoint as variables. An SFT source (is_sft, export_notes.h) gets Megatron-LM's SFT path
/// (pretrain_gpt.py and megatron/training/datasets/sft_dataset.py in NVIDIA/Megatron-LM): --sft,
/// --data-path "$SFT_JSONL", --tokenizer-type SFTTokenizer, --sft-tokenizer-prompt-format
/// "$SFT_PROMPT_FORMAT" and --no-create-attention-mask-in-dataloader, and a comment saying that
/// Megatron-LM reads neither the rows Parquet nor the recipe's loss mask and what to supply; other
/// sources read "$DATA_PATH". Comments above the command name every argument of the recipe's run
/// not carried as written: slime-only ones (and the two that become Megatron-LM ones, --num-rollout
/// as --train-iters and the dynamic batch as --micro-batch-size), layout arguments the layout block
/// replaces, an undefined ${MODEL_ARGS[@]}, the patches and what --spec needs.
std::string megatron_lm_command(const ExportSource& source);

}  // namespace openrecipes
