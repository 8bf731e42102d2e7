#include "export/megatron_bridge_recipe.h"

#include <fmt/format.h>

#include <regex>

#include "export/export_notes.h"
#include "export/precision_arguments.h"

namespace openrecipes {
namespace {

// A value as a Python literal: a number as written when Python reads it as one, else a string.
std::string python_value(const std::string& value) {
  static const std::regex kNumber(R"(-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?)");
  if (std::regex_match(value, kNumber)) return value;
  if (value == "true" || value == "True") return "True";
  if (value == "false" || value == "False") return "False";
  std::string out = "\"";
  for (char ch : value) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out + "\"";
}

// The Megatron-Bridge field of a Megatron-LM flag: the rule's first `section.key` spelling.
std::string bridge_field(const ArgumentRules& rules, const std::string& flag, bool& negated) {
  SpellingMatch match = rules.find_spelling(flag);
  negated = match.negated;
  if (!match.rule) return "";
  for (const std::string& spelling : match.rule->spellings) {
    if (spelling.rfind("--", 0) != 0 && spelling.find('.') != std::string::npos) return spelling;
  }
  return "";
}

// One assignment (or a comment when the rules have no field) for a command argument.
std::string assignment(const ArgumentRules& rules, const CommandArgument& argument) {
  bool negated = false;
  std::string field = bridge_field(rules, argument.flag, negated);
  std::string words = argument.flag;
  for (const std::string& value : argument.values) words += " " + value;
  if (field.empty())
    return fmt::format("    # {}: no Megatron-Bridge field in rules/arguments.yaml\n", words);
  std::string value;
  if (argument.values.empty()) {
    value = negated ? "False" : "True";
  } else if (argument.values.size() == 1) {
    value = python_value(argument.values[0]);
  } else {
    std::vector<std::string> items;
    for (const std::string& item : argument.values) items.push_back(python_value(item));
    value = fmt::format("[{}]", fmt::join(items, ", "));
  }
  return fmt::format("    cfg.{} = {}\n", field, value);
}

std::string optional_int(bool present, int value) {
  return present ? fmt::format("{}", value) : "None";
}

std::string docstring_text(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\\' || ch == '"') out += '\\';
    out += ch;
  }
  return out;
}

// The module docstring: what the recipe is, where it came from and, with `prediction`, the
// planner's figures.
std::string module_docstring(const ExportSource& source, const std::string& headline,
                             const LayoutPrediction* prediction) {
  std::string out = "\"\"\"Megatron-Bridge SFT recipe draft: " + docstring_text(headline) + ".\n\n";
  out += docstring_text(fmt::format("Exported by openrecipes export from {}.\nSettings: {}.\n",
                                    source.origin, source.settings_source));
  if (prediction) {
    out += docstring_text(fmt::format(
        "\nPlanned, not measured: openrecipes plan predicts {:.2f} tokens/s per GPU, a step time "
        "of {:.3f} s,\n"
        "{:.1f} GB per GPU ({}), MFU {:.4f} and {:.2f} USD per 1M tokens (calibrated speed model;\n"
        "not measured). Run it under the protocol before trusting these figures.\n",
        prediction->speed.tokens_per_s_per_gpu, prediction->speed.step_time_s,
        prediction->memory.memory_bytes / 1e9, prediction->memory.fits ? "fits" : "does not fit",
        prediction->speed.mfu, prediction->speed.usd_per_million_tokens));
  }
  out += "\"\"\"\n\n";
  return out;
}

// The "# Parallelism" section: every parallel size, the layer placement (first/last stage layers,
// the layout string, the account-for switches: TransformerConfig's fields, set explicitly as
// Megatron-Bridge's own recipes do, src/megatron/bridge/recipes/kimi/kimi_k2.py, so a base recipe's
// placement does not carry over), recompute, the dispatcher (MoE only), optimizer offload and the
// distributed optimizer.
std::string parallelism_section(const ExportSource& source) {
  const Layout& l = source.layout;
  std::string out = "    # Parallelism\n";
  out += fmt::format("    cfg.model.tensor_model_parallel_size = {}\n", l.tp);
  out += fmt::format("    cfg.model.pipeline_model_parallel_size = {}\n", l.pp);
  out += fmt::format("    cfg.model.virtual_pipeline_model_parallel_size = {}\n",
                     optional_int(l.vpp > 1, l.vpp));
  out += fmt::format("    cfg.model.context_parallel_size = {}\n", l.cp);
  out += fmt::format("    cfg.model.expert_model_parallel_size = {}\n", l.ep);
  out += fmt::format("    cfg.model.expert_tensor_parallel_size = {}\n", l.etp);
  out += fmt::format("    cfg.model.sequence_parallel = {}\n",
                     l.sequence_parallel && l.tp > 1 ? "True" : "False");
  out += fmt::format(
      "    cfg.model.num_layers_in_first_pipeline_stage = {}\n",
      optional_int(l.layer_split.has_value(), l.layer_split ? l.layer_split->first : 0));
  out +=
      fmt::format("    cfg.model.num_layers_in_last_pipeline_stage = {}\n",
                  optional_int(l.layer_split.has_value(), l.layer_split ? l.layer_split->last : 0));
  out += fmt::format("    cfg.model.pipeline_model_parallel_layout = {}\n",
                     l.pipeline_layout.empty() ? "None" : python_value(l.pipeline_layout));
  out += fmt::format("    cfg.model.account_for_embedding_in_pipeline_split = {}\n",
                     l.account_for_embedding_in_pipeline_split ? "True" : "False");
  out += fmt::format("    cfg.model.account_for_loss_in_pipeline_split = {}\n",
                     l.account_for_loss_in_pipeline_split ? "True" : "False");
  out += fmt::format("    cfg.model.recompute_granularity = {}\n",
                     l.recompute ? python_value(l.recompute->granularity) : "None");
  out += fmt::format(
      "    cfg.model.recompute_method = {}\n",
      l.recompute && !l.recompute->method.empty() ? python_value(l.recompute->method) : "None");
  out += fmt::format(
      "    cfg.model.recompute_num_layers = {}\n",
      optional_int(l.recompute && l.recompute->num_layers,
                   l.recompute && l.recompute->num_layers ? *l.recompute->num_layers : 0));
  // Stated whenever selective recompute is on, so a base recipe's list does not carry over.
  if (l.recompute && l.recompute->granularity == "selective") {
    std::vector<std::string> modules = l.recompute->modules;
    if (modules.empty()) modules.push_back("core_attn");
    for (std::string& m : modules) m = python_value(m);
    out += fmt::format("    cfg.model.recompute_modules = [{}]\n", fmt::join(modules, ", "));
  }
  if (source.shape.is_moe()) {
    out += fmt::format("    cfg.model.moe_token_dispatcher_type = {}\n",
                       l.dispatcher.empty() ? "None" : python_value(l.dispatcher));
  }
  if (l.offload) {
    out += "    cfg.optimizer.optimizer_cpu_offload = True\n";
    out += fmt::format("    cfg.optimizer.optimizer_offload_fraction = {}\n",
                       l.offload->optimizer_fraction);
    out += fmt::format("    cfg.optimizer.overlap_cpu_optimizer_d2h_h2d = {}\n",
                       l.offload->overlap_d2h_h2d ? "True" : "False");
  }
  out += "    cfg.ddp.use_distributed_optimizer = True\n\n";
  return out;
}

// The "# Training" section: the protocol's steps, the batch sizes and the sequence length, with
// what became of slime's batch and step arguments, the slime-only ones, and the recipe's layout
// arguments not written as they were.
std::string training_section(const ExportSource& source) {
  std::string out = "    # Training\n";
  if (!source.slime_only_arguments.empty()) {
    out += comment_lines(
        fmt::format("slime's --use-dynamic-batch-size --max-tokens-per-gpu {} is micro_batch_size "
                    "{} here ({} row(s) of {} tokens); --num-rollout becomes max_steps {}, the "
                    "protocol's steps",
                    source.layout.max_tokens_per_gpu, source.layout.rows_per_microbatch,
                    source.layout.rows_per_microbatch, source.workload.row_tokens, kProtocolSteps),
        "    ");
  }
  out += fmt::format("    cfg.training.max_steps = {}\n", kProtocolSteps);
  out += fmt::format("    cfg.training.global_batch_size = {}\n", source.workload.global_batch);
  out += fmt::format("    cfg.training.micro_batch_size = {}\n", source.layout.rows_per_microbatch);
  out += fmt::format("    cfg.dataset.seq_length = {}\n", source.workload.row_tokens);
  std::vector<CommandArgument> dropped;
  for (const CommandArgument& argument : source.slime_only_arguments) {
    if (argument.flag != "--num-rollout" && argument.flag != "--use-dynamic-batch-size" &&
        argument.flag != "--max-tokens-per-gpu")
      dropped.push_back(argument);
  }
  if (!dropped.empty())
    out += comment_lines("Not carried (slime only): " + arguments_words(dropped), "    ");
  std::vector<CommandArgument> replaced =
      not_written(source.replaced_arguments, protocol_arguments(source));
  if (!replaced.empty()) {
    out += comment_lines(
        "Not carried as written (the layout, batch and steps are written from "
        "the recipe's layout and workload fields): " +
            arguments_words(replaced),
        "    ");
  }
  out += run_settings_note(source, "    ");
  return out + "\n";
}

// The rows and loss mask: _sft_common() keeps Megatron-Bridge's default SFT dataset
// (HFDatasetConfig with SQuAD; its docstring in megatron/bridge/recipes/common.py,
// NVIDIA-NeMo/Megatron-Bridge).
std::string rows_section(const ExportSource& source) {
  if (!is_sft(source)) return "";
  return comment_lines(
             "Rows and loss mask, not carried: the recipe trains on " + rows_words(source) +
                 " (docs/loss-masks.md). _sft_common() keeps Megatron-Bridge's default SFT "
                 "dataset (HFDatasetConfig with SQuAD, megatron/bridge/recipes/common.py): set "
                 "cfg.dataset to a dataset config that yields these rows with their loss mask. "
                 "This draft sets none: it knows of no Megatron-Bridge dataset that reads the "
                 "rows Parquet.",
             "    ") +
         "\n";
}

// The model arguments AutoBridge does not take from the run, the layer spec and the patches.
// Sources: GPTModelProvider.transformer_layer_spec (a ModuleSpec, or a function of the provider,
// called with vp_stage when it takes one) in src/megatron/bridge/models/gpt_provider.py
// (NVIDIA-NeMo/Megatron-Bridge); slime calls a --spec function as spec(args, config, vp_stage)
// (slime/backends/megatron_utils/model_provider.py, THUDM/slime).
std::string model_notes(const ExportSource& source, const std::string& repo) {
  std::string out;
  if (source.model_arguments_outside_run) {
    out += comment_lines(
        "Not carried: ${MODEL_ARGS[@]} (the model script's arguments; the "
        "recipe's run does not define them). The model config comes from " +
            repo + "'s Hugging Face config through AutoBridge. " + model_script_words(source),
        "    ");
  } else if (!source.model_arguments_from_shape) {
    std::vector<CommandArgument> model;
    for (const CommandArgument& argument : source.model_arguments) {
      if (argument.flag != "--spec") model.push_back(argument);
    }
    out += comment_lines("Not carried: the recipe's model arguments; the model config comes from " +
                             repo +
                             "'s Hugging Face config through AutoBridge. Check that it agrees "
                             "with: " +
                             arguments_words(model),
                         "    ");
  }
  const CommandArgument* spec = spec_argument(source);
  std::string patches = fmt::format("{}", fmt::join(source.patches, ", "));
  if (spec) {
    std::string function = spec->values.size() == 2 ? spec->values[1] : "the function";
    out += comment_lines(
        fmt::format("Layer spec, not carried: the recipe's run loads {}{}. Add: put the "
                    "repository's patches/ on PYTHONPATH and set cfg.model.transformer_layer_spec "
                    "to the ModuleSpec, or to a function of the provider that returns it "
                    "(GPTModelProvider.transformer_layer_spec, "
                    "src/megatron/bridge/models/gpt_provider.py). slime calls {} as "
                    "{}(args, config, vp_stage); Megatron-Bridge calls spec(provider), or "
                    "spec(provider, vp_stage=...) when the function takes vp_stage: wrap it.",
                    arguments_words({*spec}),
                    source.patches.empty() ? "" : " (patches: " + patches + ")", function,
                    function),
        "    ");
  } else if (!source.patches.empty()) {
    out += comment_lines("Patches, not carried: the recipe needs " + patches +
                             " (the repository's patches/ folder); put them on PYTHONPATH.",
                         "    ");
  }
  return out;
}

// The command's own settings: optimizer, schedule and seed, mixed precision, the other arguments
// and the environment.
std::string settings_sections(const ExportSource& source, const ArgumentRules& rules) {
  std::string out = "    # Optimizer, schedule and seed\n";
  for (const CommandArgument& argument : source.training_arguments)
    out += assignment(rules, argument);
  out += "\n    # Mixed precision\n";
  out += fmt::format("    cfg.mixed_precision = \"{}\"\n",
                     precision_preset(source.workload.precision));
  if (!source.other_arguments.empty()) {
    out += "\n    # The recipe's other settings\n";
    for (const CommandArgument& argument : source.other_arguments)
      out += assignment(rules, argument);
  }
  if (!source.env.empty()) {
    out += "\n    # Environment (set it in the launcher):";
    for (const auto& [name, value] : source.env) out += fmt::format(" {}={}", name, value);
    out += "\n";
  }
  return out;
}

}  // namespace

std::string bridge_function_name(const std::string& model_name) {
  return model_identifier(model_name) + "_sft_config";
}

std::string megatron_bridge_recipe(const ExportSource& source, const ArgumentRules& rules,
                                   const LayoutPrediction* prediction) {
  std::string headline = fmt::format("{} {}", source.model_name, layout_headline(source));
  std::string out = module_docstring(source, headline, prediction);
  out += "from megatron.bridge import AutoBridge\n";
  out += "from megatron.bridge.recipes.common import _sft_common\n";
  out += "from megatron.bridge.training.config import ConfigContainer\n\n\n";

  out += fmt::format("def {}() -> ConfigContainer:\n", bridge_function_name(source.model_name));
  out += "    \"\"\"SFT config for " + docstring_text(headline) + ".\"\"\"\n";
  out += "    cfg = _sft_common()\n\n";
  out += "    # Model\n";
  std::string repo = source.hf_repo.empty() ? "<org>/<model>" : source.hf_repo;
  out += fmt::format("    cfg.model = AutoBridge.from_hf_pretrained({}).get_model_config()\n",
                     python_value(repo));
  out += fmt::format("    cfg.model.seq_length = {}\n", source.workload.row_tokens);
  // _sft_common() leaves the tokenizer for each recipe to set (megatron/bridge/recipes/common.py).
  out += fmt::format("    cfg.tokenizer.tokenizer_model = {}\n", python_value(repo));
  out += model_notes(source, repo) + "\n";
  out += parallelism_section(source);
  out += training_section(source);
  out += rows_section(source);
  out += settings_sections(source, rules);
  out += "\n    return cfg\n";
  return out;
}

}  // namespace openrecipes
