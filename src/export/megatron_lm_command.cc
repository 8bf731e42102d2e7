#include "export/megatron_lm_command.h"

#include <fmt/format.h>

#include "export/export_notes.h"
#include "export/precision_arguments.h"
#include "figures/figures.h"

namespace openrecipes {
namespace {

bool has_flag(const std::vector<CommandArgument>& list, const std::string& flag) {
  for (const CommandArgument& argument : list) {
    if (argument.flag == flag) return true;
  }
  return false;
}

void add_argument(std::vector<CommandArgument>& list, const std::string& flag,
                  std::vector<std::string> values = {}) {
  list.push_back({flag, std::move(values)});
}

// The dropped slime-only flags, for the comment (those with a Megatron-LM equivalent are said
// separately).
std::vector<CommandArgument> dropped_slime_arguments(const ExportSource& source) {
  std::vector<CommandArgument> out;
  for (const CommandArgument& argument : source.slime_only_arguments) {
    if (argument.flag == "--num-rollout" || argument.flag == "--use-dynamic-batch-size" ||
        argument.flag == "--max-tokens-per-gpu") {
      continue;
    }
    out.push_back(argument);
  }
  return out;
}

// What Megatron-LM's SFT path reads, and why the recipe's rows and mask are not it. Sources:
// pretrain_gpt.py (--sft selects SFTDataset), megatron/training/datasets/sft_dataset.py (JSONL
// of `messages`, one line per --seq-length row, mask 0 on prompt and padding, and its assert on
// the attention mask), megatron/training/tokenizer/sft_tokenizer.py (SFTTokenizer, its prompt
// formats and tokenize_conversation), all in NVIDIA/Megatron-LM.
std::string sft_comment(const ExportSource& source) {
  std::string mask = source.dataset && !source.dataset->build.loss_mask.empty()
                         ? source.dataset->build.loss_mask
                         : source.loss_mask;
  std::string text = fmt::format(
      "SFT rows and loss mask, not carried: the recipe trains on {} (the loss mask is "
      "docs/loss-masks.md's {}). Megatron-LM reads neither the rows Parquet nor this mask. With "
      "--sft, pretrain_gpt.py builds SFTDataset (megatron/training/datasets/sft_dataset.py): it "
      "reads a JSONL file whose lines hold {{\"messages\": [...]}}, splits a line into "
      "conversations at each system message, renders and masks each with the SFTTokenizer's "
      "--sft-tokenizer-prompt-format (megatron/training/tokenizer/sft_tokenizer.py: no loss on "
      "system and user turns or on padding) and packs one line into one --seq-length row, padded "
      "or cut at its end.",
      rows_words(source), mask.empty() ? "(unknown)" : mask);
  text += fmt::format(
      " Supply SFT_JSONL (the conversations of each row as one JSONL line) and SFT_PROMPT_FORMAT "
      "(a prompt format whose template and mask are {}'s; Megatron-LM's SFTTokenizer has none by "
      "that name). The recipe's rows cut conversations at row boundaries and SFTDataset starts "
      "each row at a conversation, so its tokens and supervised positions differ from the rows "
      "until the JSONL and the format reproduce them: until then the loss is not the recipe's.",
      mask.empty() ? "the recipe's mask" : mask);
  return comment_lines(text);
}

// The layer spec and the patches: what Megatron-LM needs beyond the flag. Sources: gpt_builders.py
// in NVIDIA/Megatron-LM (what --spec names is passed to GPTModel as the layer spec);
// slime/backends/megatron_utils/model_provider.py in THUDM/slime (a callable spec is called as
// spec(args, config, vp_stage)).
std::string spec_comment(const ExportSource& source) {
  std::string out;
  if (!source.patches.empty()) {
    out += comment_lines(fmt::format(
        "Patches, not carried: the recipe needs {} (the repository's patches/ folder); put them "
        "on PYTHONPATH on every node.",
        fmt::join(source.patches, ", ")));
  }
  if (const CommandArgument* spec = spec_argument(source)) {
    out += comment_lines(fmt::format(
        "Layer spec: {} is passed as written, but Megatron-LM's gpt_builders.py hands what "
        "--spec names to GPTModel as the layer spec itself, while slime calls a function "
        "spec(args, config, vp_stage) (slime/backends/megatron_utils/model_provider.py): if it "
        "names a function, add a module attribute that holds the spec it returns and name that.",
        arguments_words({*spec})));
  }
  return out;
}

// The header: where the draft comes from and every argument it does not carry as written.
std::string header(const ExportSource& source, const std::vector<CommandArgument>& written,
                   const std::vector<CommandArgument>& tokenizer_override) {
  const Layout& l = source.layout;
  std::string out = fmt::format("# Megatron-LM draft: {} {}, from {}\n", source.model_name,
                                layout_headline(source), source.origin);
  out += fmt::format("# Settings: {}\n", source.settings_source);
  if (source.model_arguments_outside_run) {
    out += comment_lines(
        "Not carried: ${MODEL_ARGS[@]} (the model script's arguments; the recipe's run does not "
        "define them). The model arguments below are written from the model's shape instead. " +
        model_script_words(source));
  }
  if (source.model_arguments_from_shape) {
    out +=
        "# Model arguments: written from the model's shape (sizes only); take the layer kinds, "
        "activation and\n"
        "# rope from the model's Megatron spec\n";
  }
  out += fmt::format(
      "# slime's --use-dynamic-batch-size --max-tokens-per-gpu {} is --micro-batch-size {} here "
      "({} row(s) of {} "
      "tokens); --num-rollout becomes --train-iters {}, the protocol's steps\n",
      l.max_tokens_per_gpu, l.rows_per_microbatch, l.rows_per_microbatch,
      source.workload.row_tokens, kProtocolSteps);
  std::vector<CommandArgument> dropped = dropped_slime_arguments(source);
  if (!dropped.empty())
    out += comment_lines("Not carried (slime only): " + arguments_words(dropped));
  std::vector<CommandArgument> replaced = not_written(source.replaced_arguments, written);
  if (!replaced.empty()) {
    out += comment_lines(
        "Not carried as written (the layout, batch and steps are written from "
        "the recipe's layout and workload fields): " +
        arguments_words(replaced));
  }
  out += run_settings_note(source);
  out += spec_comment(source);
  if (is_sft(source)) out += sft_comment(source);
  if (!tokenizer_override.empty()) {
    out += comment_lines(arguments_words(tokenizer_override) +
                         " (the model arguments') is --tokenizer-type SFTTokenizer here: "
                         "SFTDataset "
                         "tokenizes with tokenize_conversation, which SFTTokenizer provides");
  }
  std::string env_text;
  for (const auto& [name, value] : source.env) env_text += " " + value;
  std::vector<std::string> env_reads = unset_variables(env_text);
  std::string env_note =
      env_reads.empty() ? ""
                        : fmt::format(" (and {}, read by the exports)", fmt::join(env_reads, ", "));
  out += is_sft(source)
             ? comment_lines("Set SFT_JSONL, SFT_PROMPT_FORMAT, TOKENIZER, CHECKPOINT" + env_note +
                             ", and on each node NODE_RANK, MASTER_ADDR, "
                             "MASTER_PORT")
             : "# Set DATA_PATH (the fixed rows as a Megatron-LM dataset prefix), "
               "TOKENIZER, CHECKPOINT, and on each node\n"
               "# NODE_RANK, MASTER_ADDR, MASTER_PORT\n";
  return out;
}

// pretrain_gpt.py's arguments after the model ones: layout, batch, steps, precision, settings,
// then data, tokenizer and checkpoint.
std::vector<CommandArgument> training_arguments(const ExportSource& source, bool sft) {
  const Layout& l = source.layout;
  std::vector<CommandArgument> list;
  add_argument(list, "--seq-length", {fmt::format("{}", source.workload.row_tokens)});
  if (!has_flag(source.model_arguments, "--max-position-embeddings"))
    add_argument(list, "--max-position-embeddings",
                 {fmt::format("{}", source.workload.row_tokens)});
  for (const CommandArgument& argument : layout_arguments(source)) list.push_back(argument);
  add_argument(list, "--micro-batch-size", {fmt::format("{}", l.rows_per_microbatch)});
  add_argument(list, "--global-batch-size", {fmt::format("{}", source.workload.global_batch)});
  add_argument(list, "--train-iters", {fmt::format("{}", kProtocolSteps)});
  add_argument(list, "--bf16");
  for (const CommandArgument& argument : precision_arguments(source.workload.precision))
    list.push_back(argument);
  for (const CommandArgument& argument : source.training_arguments) list.push_back(argument);
  add_argument(list, "--use-distributed-optimizer");
  for (const CommandArgument& argument : source.other_arguments) list.push_back(argument);
  if (sft) {
    add_argument(list, "--sft");
    add_argument(list, "--data-path", {"$SFT_JSONL"});
    add_argument(list, "--split", {"100,0,0"});
    add_argument(list, "--tokenizer-type", {"SFTTokenizer"});
    add_argument(list, "--sft-tokenizer-prompt-format", {"$SFT_PROMPT_FORMAT"});
    add_argument(list, "--no-create-attention-mask-in-dataloader");
  } else {
    add_argument(list, "--data-path", {"$DATA_PATH"});
    add_argument(list, "--split", {"100,0,0"});
    if (!has_flag(source.model_arguments, "--tokenizer-type"))
      add_argument(list, "--tokenizer-type", {"HuggingFaceTokenizer"});
  }
  add_argument(list, "--tokenizer-model", {"$TOKENIZER"});
  add_argument(list, "--load", {"$CHECKPOINT"});
  add_argument(list, "--finetune");
  add_argument(list, "--eval-iters", {"0"});
  add_argument(list, "--log-interval", {"1"});
  return list;
}

}  // namespace

std::string megatron_lm_command(const ExportSource& source) {
  bool sft = is_sft(source);
  std::vector<CommandArgument> arguments;
  std::vector<CommandArgument> tokenizer_override;
  for (const CommandArgument& argument : source.model_arguments) {
    // SFTDataset needs SFTTokenizer's tokenize_conversation: the SFT tokenizer replaces the
    // model's.
    if (sft && argument.flag == "--tokenizer-type") {
      tokenizer_override.push_back(argument);
      continue;
    }
    arguments.push_back(argument);
  }
  for (CommandArgument& argument : training_arguments(source, sft))
    arguments.push_back(std::move(argument));

  std::string out = header(source, arguments, tokenizer_override);
  // A hybrid model trains through pretrain_mamba.py, which builds MambaModel
  // (megatron/core/models/mamba/mamba_model.py) from --hybrid-override-pattern, in
  // NVIDIA/Megatron-LM.
  const bool hybrid = !source.shape.hybrid_layer_pattern.empty();
  if (hybrid) {
    out += comment_lines(
        "Hybrid model: pretrain_mamba.py builds the Mamba-2, attention, MLP and MoE layers in the "
        "order --hybrid-override-pattern gives (megatron/core/models/mamba/mamba_model.py); check "
        "that your Megatron-LM's pretrain_mamba.py takes the dataset flags below, which are "
        "pretrain_gpt.py's.");
  }
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
  lines.push_back(hybrid ? "pretrain_mamba.py" : "pretrain_gpt.py");
  for (const CommandArgument& argument : arguments) lines.push_back(argument_text(argument));

  out += "torchrun";
  for (const std::string& line : lines) out += " \\\n  " + line;
  return out + "\n";
}

}  // namespace openrecipes
