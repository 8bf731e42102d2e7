#include "export/slime_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "export/export_notes.h"
#include "export/precision_arguments.h"
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

// The `<...>` placeholders of `text`, each once, in order.
std::vector<std::string> placeholders(const std::string& text) {
  static const std::regex kPlaceholder(R"(<[A-Za-z][^<>\n]*>)");
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), kPlaceholder), end; it != end; ++it) {
    if (std::find(out.begin(), out.end(), it->str()) == out.end()) out.push_back(it->str());
  }
  return out;
}

// What the command alone does not carry: the run settings taken from or left out of the settings
// recipe, the patches (and the --spec that imports them), the placeholders to fill and the
// variables to set.
std::string run_notes(const ExportSource& source, const std::string& command) {
  std::string out = run_settings_note(source);
  if (source.model_arguments_outside_run) {
    out += comment_lines(
        "Not carried: MODEL_ARGS. The command expands ${MODEL_ARGS[@]} but does not define it "
        "(a model script's arguments): define it before running. " +
        model_script_words(source));
  }
  if (!source.patches.empty()) {
    const CommandArgument* spec = spec_argument(source);
    out += comment_lines(
        fmt::format("Patches, not carried by the command: {}{}; put the repository's patches/ on "
                    "PYTHONPATH on every node.",
                    fmt::join(source.patches, ", "),
                    spec ? " (" + arguments_words({*spec}) + " imports it)" : std::string()));
  }
  std::vector<std::string> fill = placeholders(command);
  if (!fill.empty()) {
    out += comment_lines(fmt::format(
        "Fill before running: {} (left as a placeholder; bash reads an unfilled <...> as a "
        "redirection).",
        fmt::join(fill, ", ")));
  }
  std::vector<std::string> variables = unset_variables(command);
  if (!variables.empty()) {
    out += comment_lines(fmt::format("Set: {} (read by the command, set nowhere in it).",
                                     fmt::join(variables, ", ")));
  }
  return out;
}

}  // namespace

std::string slime_command(const ExportSource& source) {
  if (source.run_is_slime && !source.run_text.empty()) {
    std::string run = normalised(source.run_text);
    std::string notes = run_notes(source, run);
    if (notes.empty()) return run;
    return fmt::format("# slime: {}'s run as measured\n", source.origin) + notes + run;
  }
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
  for (const CommandArgument& argument : precision_arguments(source.workload.precision))
    lines.push_back(argument_text(argument));
  for (const CommandArgument& argument : source.other_arguments)
    lines.push_back(argument_text(argument));

  std::string command = "python3 -m <slime entry module> --async";
  for (const std::string& line : lines) command += " \\\n  " + line;
  command += "\n";
  std::size_t body = out.find("MODEL_ARGS=(");
  std::string notes = run_notes(source, out.substr(body) + command);
  return out.substr(0, body) + notes + out.substr(body) + command;
}

}  // namespace openrecipes
