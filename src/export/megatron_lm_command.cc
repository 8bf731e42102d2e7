#include "export/megatron_lm_command.h"

#include <fmt/format.h>

#include "figures/figures.h"

namespace openrecipes {
namespace {

bool has_flag(const std::vector<CommandArgument>& list, const std::string& flag) {
  for (const CommandArgument& argument : list) {
    if (argument.flag == flag) return true;
  }
  return false;
}

// The dropped slime-only flags, for the comment (those with a Megatron-LM equivalent are said
// separately).
std::string dropped_flags(const ExportSource& source) {
  std::vector<std::string> flags;
  for (const CommandArgument& argument : source.slime_only_arguments) {
    if (argument.flag == "--num-rollout" || argument.flag == "--use-dynamic-batch-size" ||
        argument.flag == "--max-tokens-per-gpu") {
      continue;
    }
    flags.push_back(argument.flag);
  }
  return fmt::format("{}", fmt::join(flags, " "));
}

}  // namespace

std::string megatron_lm_command(const ExportSource& source) {
  const Layout& l = source.layout;
  std::string out = fmt::format("# Megatron-LM draft: {} {}, from {}\n", source.model_name,
                                layout_headline(source), source.origin);
  out += fmt::format("# Settings: {}\n", source.settings_source);
  if (source.model_arguments_from_shape) {
    out +=
        "# Model arguments: written from the model's shape (sizes only); take the layer kinds, "
        "activation and\n"
        "# rope from the model's Megatron spec\n";
  }
  out += fmt::format(
      "# slime's --use-dynamic-batch-size --max-tokens-per-gpu {} is --micro-batch-size {} here "
      "({} row(s) of {} "
      "tokens); --num-rollout {} is --train-iters {}\n",
      l.max_tokens_per_gpu, l.rows_per_microbatch, l.rows_per_microbatch,
      source.workload.row_tokens, kProtocolSteps, kProtocolSteps);
  std::string dropped = dropped_flags(source);
  if (!dropped.empty()) out += fmt::format("# Dropped (slime only): {}\n", dropped);
  out +=
      "# Set DATA_PATH (the fixed rows as a Megatron-LM dataset prefix), TOKENIZER, CHECKPOINT, "
      "and on each node\n"
      "# NODE_RANK, MASTER_ADDR, MASTER_PORT\n";
  for (const auto& [name, value] : source.env)
    out += fmt::format("export {}={}\n", name, shell_word(value));
  out += "\n";

  int nodes = node_count(source.cluster.gpus, source.cluster.per_node);
  std::vector<std::string> lines;
  lines.push_back(fmt::format("--nproc-per-node {}", source.cluster.gpus / nodes));
  lines.push_back(fmt::format("--nnodes {}", nodes));
  lines.push_back("--node-rank \"$NODE_RANK\"");
  lines.push_back("--master-addr \"$MASTER_ADDR\"");
  lines.push_back("--master-port \"$MASTER_PORT\"");
  lines.push_back("pretrain_gpt.py");
  for (const CommandArgument& argument : source.model_arguments)
    lines.push_back(argument_text(argument));
  lines.push_back(fmt::format("--seq-length {}", source.workload.row_tokens));
  if (!has_flag(source.model_arguments, "--max-position-embeddings")) {
    lines.push_back(fmt::format("--max-position-embeddings {}", source.workload.row_tokens));
  }
  for (const CommandArgument& argument : layout_arguments(source))
    lines.push_back(argument_text(argument));
  lines.push_back(fmt::format("--micro-batch-size {}", l.rows_per_microbatch));
  lines.push_back(fmt::format("--global-batch-size {}", source.workload.global_batch));
  lines.push_back(fmt::format("--train-iters {}", kProtocolSteps));
  lines.push_back("--bf16");
  if (source.workload.precision == Precision::kFp8) lines.push_back("--fp8-format hybrid");
  for (const CommandArgument& argument : source.training_arguments)
    lines.push_back(argument_text(argument));
  lines.push_back("--use-distributed-optimizer");
  for (const CommandArgument& argument : source.other_arguments)
    lines.push_back(argument_text(argument));
  lines.push_back("--data-path \"$DATA_PATH\"");
  lines.push_back("--split 100,0,0");
  if (!has_flag(source.model_arguments, "--tokenizer-type"))
    lines.push_back("--tokenizer-type HuggingFaceTokenizer");
  lines.push_back("--tokenizer-model \"$TOKENIZER\"");
  lines.push_back("--load \"$CHECKPOINT\"");
  lines.push_back("--finetune");
  lines.push_back("--eval-iters 0");
  lines.push_back("--log-interval 1");

  out += "torchrun";
  for (const std::string& line : lines) out += " \\\n  " + line;
  return out + "\n";
}

}  // namespace openrecipes
