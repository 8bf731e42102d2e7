#include "export/slime_command.h"

#include <fmt/format.h>

#include <sstream>

#include "figures/figures.h"

namespace openrecipes {
namespace {

std::string normalised(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.pop_back();
    lines.push_back(line);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace

std::string slime_command(const ExportSource& source) {
  if (source.run_is_slime && !source.run_text.empty()) return normalised(source.run_text);
  std::string out = fmt::format("# slime draft: {} {}, from {}\n", source.model_name,
                                layout_headline(source), source.origin);
  out += fmt::format("# Settings: {}\n", source.settings_source);
  if (source.model_arguments_from_shape) {
    out +=
        "# MODEL_ARGS: written from the model's shape (sizes only); take the layer kinds, "
        "activation and rope\n"
        "# from the model's Megatron spec\n";
  }
  out += "MODEL_ARGS=(\n";
  for (const CommandArgument& argument : source.model_arguments)
    out += "  " + argument_text(argument) + "\n";
  out += ")\n";
  for (const auto& [name, value] : source.env)
    out += fmt::format("export {}={}\n", name, shell_word(value));
  out += "\n";

  std::vector<std::string> lines;
  int nodes = node_count(source.cluster.gpus, source.cluster.per_node);
  int per_node = source.cluster.gpus / nodes;
  lines.push_back(fmt::format("--actor-num-nodes {}", nodes));
  lines.push_back(fmt::format("--actor-num-gpus-per-node {}", per_node));
  lines.push_back("${MODEL_ARGS[@]}");
  lines.push_back(fmt::format("--seq-length {}", source.workload.row_tokens));
  lines.push_back("--hf-checkpoint \"$HF_CKPT\"");
  lines.push_back("--ref-load \"$TORCH_DIST\"");
  lines.push_back("--rollout-function-path pretokenized_sft_rollout.generate_rollout");
  lines.push_back("--prompt-data \"$SFT_DATA\"");
  lines.push_back("--input-key messages");
  lines.push_back("--metadata-key metadata");
  lines.push_back(fmt::format("--num-rollout {}", kProtocolSteps));
  lines.push_back(fmt::format("--rollout-batch-size {}", source.workload.global_batch));
  lines.push_back(fmt::format("--global-batch-size {}", source.workload.global_batch));
  lines.push_back("--loss-type sft_loss");
  if (!source.loss_mask.empty())
    lines.push_back("--loss-mask-type " + shell_word(source.loss_mask));
  lines.push_back("--disable-compute-advantages-and-returns");
  lines.push_back("--debug-train-only");
  for (const CommandArgument& argument : layout_arguments(source))
    lines.push_back(argument_text(argument));
  lines.push_back("--use-dynamic-batch-size");
  lines.push_back(fmt::format("--max-tokens-per-gpu {}", source.layout.max_tokens_per_gpu));
  for (const CommandArgument& argument : source.training_arguments)
    lines.push_back(argument_text(argument));
  lines.push_back("--use-distributed-optimizer");
  if (source.workload.precision == Precision::kFp8) lines.push_back("--fp8-format hybrid");
  for (const CommandArgument& argument : source.other_arguments)
    lines.push_back(argument_text(argument));

  out += "python3 -m <slime entry module> --async";
  for (const std::string& line : lines) out += " \\\n  " + line;
  return out + "\n";
}

}  // namespace openrecipes
