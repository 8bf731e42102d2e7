#include "export/export_source.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <string_view>

#include "figures/layout_label.h"
#include "layout/layout_rules.h"
#include "runs/shell_reader.h"
#include "runs/training_command.h"

namespace openrecipes {
namespace {

// Arguments every writer writes itself from the layout, the workload or the protocol.
const std::set<std::string>& layout_names() {
  static const std::set<std::string> kNames = {"tensor_model_parallel_size",
                                               "pipeline_model_parallel_size",
                                               "context_parallel_size",
                                               "expert_model_parallel_size",
                                               "expert_tensor_parallel_size",
                                               "virtual_pipeline_model_parallel_size",
                                               "num_layers_per_virtual_pipeline_stage",
                                               "sequence_parallel",
                                               "num_layers_in_first_pipeline_stage",
                                               "num_layers_in_last_pipeline_stage",
                                               "pipeline_model_parallel_layout",
                                               "account_for_embedding_in_pipeline_split",
                                               "account_for_loss_in_pipeline_split",
                                               "micro_batch_size",
                                               "recompute_granularity",
                                               "recompute_method",
                                               "recompute_num_layers",
                                               "recompute_modules",
                                               "moe_token_dispatcher_type",
                                               "global_batch_size",
                                               "seq_length",
                                               "train_iters",
                                               "use_distributed_optimizer",
                                               "bf16",
                                               "optimizer_cpu_offload",
                                               "optimizer_offload_fraction",
                                               "overlap_cpu_optimizer_d2h_h2d",
                                               "nproc_per_node",
                                               "nnodes",
                                               "node_rank",
                                               "master_addr",
                                               "master_port",
                                               "rdzv_backend",
                                               "rdzv_endpoint",
                                               "rdzv_id",
                                               "nodes",
                                               "gpus_per_node",
                                               "load",
                                               "data_path",
                                               "split",
                                               "tokenizer_model"};
  return kNames;
}

// Optimizer, schedule and seed: the convergence settings a draft carries over unchanged.
const std::set<std::string>& training_names() {
  static const std::set<std::string> kNames = {"optimizer",
                                               "lr",
                                               "min_lr",
                                               "lr_decay_style",
                                               "lr_decay_iters",
                                               "lr_warmup_iters",
                                               "lr_warmup_fraction",
                                               "lr_warmup_init",
                                               "adam_beta1",
                                               "adam_beta2",
                                               "adam_eps",
                                               "clip_grad",
                                               "weight_decay",
                                               "weight_decay_incr_style",
                                               "start_weight_decay",
                                               "end_weight_decay",
                                               "seed"};
  return kNames;
}

// Architecture arguments (rules/arguments.yaml's model-shape entries).
const std::set<std::string>& model_names() {
  static const std::set<std::string> kNames = {"spec",
                                               "num_layers",
                                               "hidden_size",
                                               "ffn_hidden_size",
                                               "num_attention_heads",
                                               "group_query_attention",
                                               "num_query_groups",
                                               "kv_channels",
                                               "max_position_embeddings",
                                               "padded_vocab_size",
                                               "vocab_size",
                                               "make_vocab_size_divisible_by",
                                               "normalization",
                                               "norm_epsilon",
                                               "apply_layernorm_1p",
                                               "untie_embeddings_and_output_weights",
                                               "position_embedding_type",
                                               "rotary_percent",
                                               "rotary_base",
                                               "rotary_seq_len_interpolation_factor",
                                               "swiglu",
                                               "quick_geglu",
                                               "glu_linear_offset",
                                               "activation_func_clamp_value",
                                               "softmax_type",
                                               "window_size",
                                               "window_attn_skip_freq",
                                               "add_bias_linear",
                                               "add_qkv_bias",
                                               "qk_layernorm",
                                               "num_experts",
                                               "moe_ffn_hidden_size",
                                               "moe_shared_expert_intermediate_size",
                                               "moe_layer_freq",
                                               "mtp_num_layers",
                                               "tokenizer_type"};
  return kNames;
}

std::string canonical_name(const ArgumentRules& rules, const std::string& flag) {
  SpellingMatch match = rules.find_spelling(flag);
  return match.rule ? match.rule->name : flag;
}

// The settings of a recipe's `run`: model arguments (its arrays, or model flags written inline),
// training arguments, the rest, and the slime-only ones.
void read_settings(const std::string& run, const ArgumentRules& rules, ExportSource& source) {
  ShellScript script = read_shell_script(run);
  TrainingCommand command = training_command_from_script(script, rules);
  source.run_is_slime = command.program.find("slime") != std::string::npos;
  source.model_arguments_outside_run = run.find("${MODEL_ARGS[@]}") != std::string::npos &&
                                       script.arrays.find("MODEL_ARGS") == script.arrays.end();
  std::set<std::string> array_flags;
  for (const auto& [name, words] : script.arrays) {
    std::vector<std::string> texts;
    for (const ShellWord& word : words) texts.push_back(word.text);
    for (CommandArgument& argument : group_arguments(texts)) {
      array_flags.insert(argument.flag);
      source.model_arguments.push_back(std::move(argument));
    }
  }
  for (const TrainingArgument* read : in_written_order(command)) {
    if (read->spelling.rfind("--", 0) != 0) continue;  // a Megatron-Bridge override, not a flag
    CommandArgument argument{read->spelling, read->value_words};
    if (array_flags.count(argument.flag)) continue;
    std::string name = canonical_name(rules, argument.flag);
    if (is_slime_only_argument(name)) {
      source.slime_only_arguments.push_back(std::move(argument));
    } else if (layout_names().count(name)) {
      source.replaced_arguments.push_back(std::move(argument));
    } else if (training_names().count(name)) {
      source.training_arguments.push_back(std::move(argument));
    } else if (model_names().count(name)) {
      source.model_arguments.push_back(std::move(argument));
    } else {
      source.other_arguments.push_back(std::move(argument));
    }
  }
  // slime's --loss-mask-type follows the measured run: its value when the run states it, and
  // none when the run trains without it (pre-tokenized rows carry their own masks), so that a
  // draft classes as the same configuration as its recipe (openrecipes classify).
  if (source.run_is_slime) {
    source.loss_mask.clear();
    for (const CommandArgument& argument : source.slime_only_arguments) {
      if (canonical_name(rules, argument.flag) == "loss_mask_type" && !argument.values.empty())
        source.loss_mask = argument.values.front();
    }
  }
}

// The settings the recipe's model_script says its undefined array holds (schema/recipe.schema.yaml,
// model_script), as if written in the command before its own flags: those no list holds yet (the
// model arguments from the shape included, so call it after finish_layout) and
// that no writer writes from the model's shape, the layout or the workload (a loss coefficient, a
// router setting) join other_arguments, so that a draft carries them.
void add_model_script_settings(const ArgumentRules& rules, ExportSource& source) {
  if (!source.model_script) return;
  std::set<std::string> written;
  for (const auto* list :
       {&source.model_arguments, &source.training_arguments, &source.other_arguments,
        &source.replaced_arguments, &source.slime_only_arguments}) {
    for (const CommandArgument& argument : *list) written.insert(argument.flag);
  }
  for (const auto& [flag, value] : source.model_script->sets) {
    std::string name = canonical_name(rules, flag);
    if (written.count(flag) || is_slime_only_argument(name) || layout_names().count(name) ||
        training_names().count(name) || model_names().count(name))
      continue;
    CommandArgument argument{flag, {}};
    if (value != "true") argument.values.push_back(value);
    source.other_arguments.push_back(std::move(argument));
  }
}

void finish_layout(ExportSource& source) {
  source.layout.dp = implied_data_parallel(source.cluster, source.layout);
  source.layout.label = layout_label(source.layout);
  if (source.model_arguments.empty()) {
    source.model_arguments = model_arguments_from_shape(source.shape);
    source.model_arguments_from_shape = true;
  }
}

void add(std::vector<CommandArgument>& list, const std::string& flag,
         const std::string& value = "") {
  CommandArgument argument{flag, {}};
  if (!value.empty()) argument.values.push_back(value);
  list.push_back(std::move(argument));
}

}  // namespace

bool is_slime_only_argument(const std::string& canonical_name) {
  static const std::set<std::string> kNames = {"actor_num_nodes",
                                               "actor_num_gpus_per_node",
                                               "colocate",
                                               "async",
                                               "debug_train_only",
                                               "hf_checkpoint",
                                               "ref_load",
                                               "prompt_data",
                                               "input_key",
                                               "label_key",
                                               "metadata_key",
                                               "tool_key",
                                               "apply_chat_template",
                                               "rollout_function_path",
                                               "rollout_shuffle",
                                               "rollout_seed",
                                               "rollout_batch_size",
                                               "n_samples_per_prompt",
                                               "loss_mask_type",
                                               "loss_type",
                                               "disable_compute_advantages_and_returns",
                                               "num_rollout",
                                               "use_dynamic_batch_size",
                                               "max_tokens_per_gpu"};
  return kNames.count(canonical_name) > 0;
}

std::vector<CommandArgument> group_arguments(const std::vector<std::string>& words) {
  std::vector<CommandArgument> arguments;
  for (const std::string& word : words) {
    if (word.rfind("--", 0) == 0 && word.size() > 2) {
      arguments.push_back({word, {}});
    } else if (!arguments.empty()) {
      arguments.back().values.push_back(word);
    }
  }
  return arguments;
}

std::optional<ExportSource> export_source_from_recipe(const Recipe& recipe, const std::string& path,
                                                      const Catalog& catalog,
                                                      const ArgumentRules& rules,
                                                      Problems& problems) {
  const Model* model = catalog.find_model(recipe.model);
  const Gpu* gpu = catalog.find_gpu(recipe.gpu.type);
  if (!model) {
    problems.push_back({path,
                        {},
                        "model",
                        "export.model",
                        fmt::format("'{}' is not in models.yaml", recipe.model),
                        "a model of models.yaml",
                        recipe.model});
    return std::nullopt;
  }
  if (!gpu) {
    problems.push_back({path,
                        {},
                        "gpu.type",
                        "export.gpu",
                        fmt::format("'{}' is not in gpus.yaml", recipe.gpu.type),
                        "a GPU type of gpus.yaml",
                        recipe.gpu.type});
    return std::nullopt;
  }
  ExportSource source;
  source.model_name = model->name;
  source.model_slug = model->slug;
  source.hf_repo = model->hf_repo;
  source.loss_mask = model->loss_mask;
  source.shape = model->shape;
  source.cluster = {*gpu, recipe.gpu.count, recipe.gpu.per_node};
  source.workload.row_tokens = recipe.workload.row_tokens;
  source.workload.global_batch = recipe.workload.global_batch;
  source.workload.precision =
      precision_from_name(recipe.workload.precision).value_or(Precision::kBf16);
  source.layout = recipe.layout;
  source.env = recipe.env;
  source.patches = recipe.patches;
  source.dataset = recipe.workload.dataset;
  source.origin = path;
  source.run_text = recipe.run;
  source.model_script = recipe.model_script;
  read_settings(recipe.run, rules, source);
  source.settings_source = fmt::format("{}'s run command", path);
  finish_layout(source);
  add_model_script_settings(rules, source);
  return source;
}

ExportSource export_source_from_layout(const ModelShape& shape, const Model* model,
                                       const ClusterShape& cluster, const PlanWorkload& workload,
                                       const Layout& layout, const Recipe* settings_recipe,
                                       const std::string& settings_path,
                                       const ArgumentRules& rules) {
  ExportSource source;
  source.model_name = model ? model->name : shape.name;
  source.model_slug = model ? model->slug : "";
  source.hf_repo = model ? model->hf_repo : "";
  source.loss_mask = model ? model->loss_mask : "";
  source.shape = shape;
  source.cluster = cluster;
  source.workload = workload;
  source.layout = layout;
  source.origin = "planner";
  if (settings_recipe) {
    read_settings(settings_recipe->run, rules, source);
    source.run_is_slime = false;
    source.slime_only_arguments.clear();
    source.replaced_arguments.clear();  // the layout asked for replaces the recipe's
    source.env = settings_recipe->env;
    source.patches = settings_recipe->patches;
    source.model_script = settings_recipe->model_script;
    source.dataset = settings_recipe->workload.dataset;
    source.settings_source = fmt::format(
        "{}'s run command (a measured recipe of the same model; only the layout differs)",
        settings_path);
  } else {
    // The catalog's Qwen3.5-122B-A10B recipes' optimizer and schedule
    // (recipes/qwen3.5-122b-a10b/h200/).
    add(source.training_arguments, "--optimizer", "adam");
    add(source.training_arguments, "--lr", "1e-5");
    add(source.training_arguments, "--lr-decay-style", "cosine");
    add(source.training_arguments, "--min-lr", "1e-6");
    add(source.training_arguments, "--lr-warmup-fraction", "0.1");
    add(source.training_arguments, "--weight-decay", "0.1");
    add(source.training_arguments, "--adam-beta1", "0.9");
    add(source.training_arguments, "--adam-beta2", "0.98");
    add(source.other_arguments, "--attention-dropout", "0.0");
    add(source.other_arguments, "--hidden-dropout", "0.0");
    source.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
                  {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
    source.settings_source =
        "defaults: the catalog's Qwen3.5-122B-A10B recipes' optimizer and schedule (no recipe of "
        "this model "
        "in the catalog)";
  }
  finish_layout(source);
  add_model_script_settings(rules, source);
  return source;
}

std::vector<CommandArgument> model_arguments_from_shape(const ModelShape& shape) {
  std::vector<CommandArgument> list;
  auto number = [](auto value) { return fmt::format("{}", value); };
  add(list, "--num-layers", number(shape.layers));
  add(list, "--hidden-size", number(shape.hidden_size));
  int ffn =
      shape.dense_ffn_hidden_size > 0 ? shape.dense_ffn_hidden_size : shape.expert_ffn_hidden_size;
  if (ffn > 0) add(list, "--ffn-hidden-size", number(ffn));
  add(list, "--num-attention-heads", number(shape.attention_heads));
  if (shape.kv_heads > 0 && shape.kv_heads < shape.attention_heads) {
    add(list, "--group-query-attention");
    add(list, "--num-query-groups", number(shape.kv_heads));
  }
  if (shape.head_dim > 0) add(list, "--kv-channels", number(shape.head_dim));
  add(list, "--vocab-size", number(shape.vocab_size));
  add(list, "--tokenizer-type", "HuggingFaceTokenizer");
  add(list, "--normalization", "RMSNorm");
  if (!shape.hybrid_layer_pattern.empty()) {
    // Megatron-LM's hybrid stack (megatron/core/models/mamba/mamba_model.py, trained by
    // pretrain_mamba.py): the layer order, the Mamba-2 mixer's sizes, and no position embedding
    // (Nemotron-H's attention layers have none).
    add(list, "--hybrid-override-pattern", shape.hybrid_layer_pattern);
    add(list, "--mamba-num-heads", number(shape.mamba_heads));
    add(list, "--mamba-head-dim", number(shape.mamba_head_dim));
    add(list, "--mamba-state-dim", number(shape.mamba_state_size));
    add(list, "--mamba-num-groups", number(shape.mamba_groups));
    add(list, "--position-embedding-type", "none");
  } else {
    add(list, "--position-embedding-type", "rope");
  }
  add(list, shape.gated_mlp ? "--swiglu" : "--squared-relu");
  if (!shape.tied_embeddings) add(list, "--untie-embeddings-and-output-weights");
  if (shape.is_moe()) {
    add(list, "--num-experts", number(shape.experts));
    add(list, "--moe-ffn-hidden-size", number(shape.expert_ffn_hidden_size));
    add(list, "--moe-router-topk", number(shape.experts_per_token));
    if (shape.shared_expert_ffn_hidden_size > 0) {
      add(list, "--moe-shared-expert-intermediate-size",
          number(shape.shared_expert_ffn_hidden_size));
    }
    add(list, "--moe-grouped-gemm");
  }
  return list;
}

std::string model_identifier(const std::string& model_name) {
  std::string out;
  for (char ch : model_name) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (ch != '.' && (out.empty() || out.back() != '_')) {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) out = "m" + out;
  return out;
}

}  // namespace openrecipes

namespace openrecipes {

std::string shell_word(const std::string& word) {
  if (word.empty()) return "''";
  if (word.size() > 3 && word.rfind("$(", 0) == 0 && word.back() == ')') return word;
  bool safe = true;
  for (char ch : word) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) && std::string_view("_./:,=+-@%").find(ch) == std::string_view::npos)
      safe = false;
  }
  if (safe) return word;
  bool variable = word.size() > 1 && word[0] == '$';
  for (std::size_t i = 1; variable && i < word.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(word[i]);
    if (!std::isalnum(c) && word[i] != '_' && word[i] != '{' && word[i] != '}') variable = false;
  }
  if (variable) return "\"" + word + "\"";
  std::string out = "'";
  for (char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string argument_text(const CommandArgument& argument) {
  std::string out = argument.flag;
  for (const std::string& value : argument.values) out += " " + shell_word(value);
  return out;
}

std::vector<CommandArgument> layout_arguments(const ExportSource& source) {
  const Layout& l = source.layout;
  std::vector<CommandArgument> list;
  auto number = [](auto value) { return fmt::format("{}", value); };
  add(list, "--tensor-model-parallel-size", number(l.tp));
  add(list, "--pipeline-model-parallel-size", number(l.pp));
  add(list, "--context-parallel-size", number(l.cp));
  add(list, "--expert-model-parallel-size", number(l.ep));
  add(list, "--expert-tensor-parallel-size", number(l.etp));
  // A layout string carries the virtual stages (its chunks / PP), and Megatron-LM refuses
  // --num-virtual-stages-per-pipeline-rank beside it (megatron/training/arguments.py).
  if (!l.pipeline_layout.empty()) {
    add(list, "--pipeline-model-parallel-layout", l.pipeline_layout);
  } else if (l.vpp > 1) {
    add(list, "--num-virtual-stages-per-pipeline-rank", number(l.vpp));
  }
  if (l.layer_split) {
    add(list, "--decoder-first-pipeline-num-layers", number(l.layer_split->first));
    add(list, "--decoder-last-pipeline-num-layers", number(l.layer_split->last));
  }
  if (l.account_for_embedding_in_pipeline_split)
    add(list, "--account-for-embedding-in-pipeline-split");
  if (l.account_for_loss_in_pipeline_split) add(list, "--account-for-loss-in-pipeline-split");
  if (l.sequence_parallel && l.tp > 1) add(list, "--sequence-parallel");
  if (l.recompute) {
    add(list, "--recompute-granularity", l.recompute->granularity);
    if (!l.recompute->method.empty()) add(list, "--recompute-method", l.recompute->method);
    if (l.recompute->num_layers)
      add(list, "--recompute-num-layers", number(*l.recompute->num_layers));
    if (!l.recompute->modules.empty())
      list.push_back(CommandArgument{"--recompute-modules", l.recompute->modules});
  }
  if (l.offload) {
    add(list, "--optimizer-cpu-offload");
    add(list, "--optimizer-offload-fraction", number(l.offload->optimizer_fraction));
    if (l.offload->overlap_d2h_h2d) add(list, "--overlap-cpu-optimizer-d2h-h2d");
  }
  if (source.shape.is_moe() && !l.dispatcher.empty())
    add(list, "--moe-token-dispatcher-type", l.dispatcher);
  return list;
}

std::string layout_headline(const ExportSource& source) {
  return fmt::format("{} on {} x {}", source.layout.label, source.cluster.gpus,
                     source.cluster.gpu.type);
}

}  // namespace openrecipes
