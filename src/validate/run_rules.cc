// The run.layout rule: the command in `run` sets what the layout says. The command is read as
// every other reader of `run` reads it (runs/training_command.h: the shell script's training
// command); flag names are Megatron-LM's (also slime's), plus Megatron-Bridge's Hydra-style
// overrides.
#include <fmt/format.h>

#include <charconv>

#include "base/source_text.h"
#include "runs/training_command.h"
#include "validate/recipe_rules.h"

namespace openrecipes {
namespace {

// The value of an argument as written: none for a flag written alone.
std::optional<std::string> value_of(const TrainingArgument& argument) {
  if (!argument.valued) return std::nullopt;
  return argument.value;
}

std::optional<long long> as_integer(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  const char* begin = text->data() + ((*text)[0] == '+' ? 1 : 0);
  long long value = 0;
  auto [end, ec] = std::from_chars(begin, text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

class RunChecker {
 public:
  explicit RunChecker(const RuleContext& c)
      : c_(c), command_(read_training_command(c.recipe.run, no_argument_rules())) {
    // Lines of the command map to lines of the file only in a literal block (`run: |`); folded
    // and quoted scalars rewrap, so their problems point at the `run` key instead.
    const YamlNode* run = c.file.document.root.find("run");
    if (run && run->style == '|') first_line_ = c.file.document.position_of("run").line + 1;
  }

  // A size that defaults to `fallback` when the command does not set it.
  void size(const std::string& field, long long layout_value, long long fallback,
            std::initializer_list<std::string_view> names) {
    const TrainingArgument* argument = find(names);
    if (!argument) {
      if (layout_value != fallback) {
        report(
            nullptr, field,
            fmt::format("the run command does not set {} (so it is {})", *names.begin(), fallback),
            fmt::format("{} {}", *names.begin(), layout_value), "no such argument");
      }
      return;
    }
    compare_integer(*argument, field, layout_value);
  }

  // A value checked only where the command states it (it may come from a model script).
  void stated_integer(const std::string& field, long long layout_value,
                      std::initializer_list<std::string_view> names) {
    if (const TrainingArgument* argument = find(names)) {
      compare_integer(*argument, field, layout_value);
    }
  }

  void stated_string(const std::string& field, const std::string& layout_value,
                     std::initializer_list<std::string_view> names) {
    const TrainingArgument* argument = find(names);
    if (argument && value_of(*argument).value_or("") != layout_value) {
      report(
          argument, field, fmt::format("the run command sets {} differently", argument->spelling),
          layout_value.empty() ? "null" : layout_value, value_of(*argument).value_or("no value"));
    }
  }

  void sequence_parallel(const Layout& l) {
    const TrainingArgument* argument = find({"--sequence-parallel", "model.sequence_parallel"});
    bool on = argument && (!argument->valued || argument->spelling == "--sequence-parallel" ||
                           argument->value == "true" || argument->value == "True");
    // Megatron-LM turns sequence parallelism off at TP 1 (arguments.py), so only TP > 1 counts.
    bool effective = on && l.tp > 1;
    if (effective != l.sequence_parallel) {
      report(argument, "layout.sequence_parallel",
             l.tp == 1 && l.sequence_parallel
                 ? "sequence parallelism has no effect at TP 1"
                 : "the run command's sequence parallelism disagrees with the layout",
             l.sequence_parallel ? "true" : "false",
             fmt::format("{} (--sequence-parallel {} at TP {})", effective ? "true" : "false",
                         on ? "set" : "not set", l.tp));
    }
  }

  void recompute(const Layout& l) {
    const TrainingArgument* granularity =
        find({"--recompute-granularity", "model.recompute_granularity"});
    if (!l.recompute) {
      if (granularity) {
        report(granularity, "layout.recompute", "the run command recomputes, the layout does not",
               "no --recompute-granularity", value_of(*granularity).value_or("no value"));
      }
      return;
    }
    if (!granularity) {
      report(nullptr, "layout.recompute.granularity", "the run command does not recompute",
             "--recompute-granularity " + l.recompute->granularity, "no such argument");
      return;
    }
    stated_string("layout.recompute.granularity", l.recompute->granularity,
                  {"--recompute-granularity", "model.recompute_granularity"});
    required_string("layout.recompute.method", l.recompute->method,
                    {"--recompute-method", "model.recompute_method"});
    if (l.recompute->num_layers) {
      const TrainingArgument* layers =
          find({"--recompute-num-layers", "model.recompute_num_layers"});
      if (!layers) {
        report(nullptr, "layout.recompute.num_layers", "the run command does not set it",
               fmt::format("--recompute-num-layers {}", *l.recompute->num_layers),
               "no such argument");
      } else {
        compare_integer(*layers, "layout.recompute.num_layers", *l.recompute->num_layers);
      }
    }
  }

  void gpu_count(const RecipeGpu& gpu) {
    auto check = [&](std::initializer_list<std::string_view> nodes,
                     std::initializer_list<std::string_view> per_node) {
      const TrainingArgument* n = find(nodes);
      const TrainingArgument* g = find(per_node);
      std::optional<long long> nodes_value = n ? as_integer(value_of(*n)) : std::nullopt;
      std::optional<long long> per_node_value = g ? as_integer(value_of(*g)) : std::nullopt;
      if (g && per_node_value && *per_node_value != gpu.per_node) {
        report(g, "gpu.per_node", fmt::format("the run command sets {} differently", g->spelling),
               fmt::format("{}", gpu.per_node), g->value);
      }
      if (!nodes_value || !per_node_value) return;
      long long nodes_count = nodes_value.value_or(0), per_node_count = per_node_value.value_or(0);
      long long product = 0;
      bool overflow = __builtin_mul_overflow(nodes_count, per_node_count, &product);
      if (overflow || product != gpu.count) {
        report(n, "gpu.count", "the run command's nodes x GPUs per node disagrees with gpu.count",
               fmt::format("{}", gpu.count), fmt::format("{} x {}", nodes_count, per_node_count));
      }
    };
    check({"--actor-num-nodes"}, {"--actor-num-gpus-per-node"});    // slime
    check({"--nnodes"}, {"--nproc-per-node", "--nproc_per_node"});  // torchrun
  }

  /// Reports what keeps the run from being read as a command (rule run.layout, at the problem's
  /// line where the block maps to the file); false when it holds no command to check.
  bool readable() {
    for (const Problem& problem : command_.problems) {
      SourcePosition position = c_.file.document.position_of("run");
      if (problem.position.line > 0 && first_line_ > 0)
        position = {first_line_ + problem.position.line - 1, 1};
      c_.report_at(position, "run.layout", "run",
                   "the run command cannot be read: " + problem.message);
    }
    return has_command(command_);
  }

 private:
  // The argument last written under one of `spellings`; a Hydra deletion (`~key`) unsets it.
  const TrainingArgument* find(std::initializer_list<std::string_view> spellings) const {
    const TrainingArgument* argument = command_.find_spelling(spellings);
    return argument && argument->value == "~deleted" ? nullptr : argument;
  }

  void required_string(const std::string& field, const std::string& layout_value,
                       std::initializer_list<std::string_view> names) {
    if (layout_value.empty()) return stated_string(field, layout_value, names);
    if (!find(names)) {
      report(nullptr, field, "the run command does not set it",
             fmt::format("{} {}", *names.begin(), layout_value), "no such argument");
      return;
    }
    stated_string(field, layout_value, names);
  }

  void compare_integer(const TrainingArgument& argument, const std::string& field,
                       long long expected) {
    std::optional<long long> value = as_integer(value_of(argument));
    if (!value) {
      report(&argument, field, fmt::format("{} must be a literal number", argument.spelling),
             fmt::format("{}", expected), value_of(argument).value_or("no value"));
    } else if (*value != expected) {
      report(&argument, field,
             fmt::format("the run command sets {} differently", argument.spelling),
             fmt::format("{}", expected), argument.value);
    }
  }

  void report(const TrainingArgument* argument, const std::string& field, std::string message,
              std::string expected, std::string found) {
    SourcePosition position = c_.file.document.position_of("run");
    if (argument && first_line_ > 0) {
      int line = first_line_ + argument->line - 1;
      SourceText source(c_.file.document.text);
      std::string_view text = source.line(line);
      std::size_t at = text.find(argument->spelling);
      position = {line, at == std::string_view::npos ? 1 : static_cast<int>(at) + 1};
    }
    c_.report_at(position, "run.layout", "run", fmt::format("{}: {}", field, message),
                 std::move(expected), std::move(found));
  }

  const RuleContext& c_;
  TrainingCommand command_;
  int first_line_ = 0;
};

}  // namespace

void check_run_rules(const RuleContext& context) {
  const Recipe& r = context.recipe;
  const Layout& l = r.layout;
  RunChecker run(context);
  if (!run.readable()) return;
  run.size("layout.tp", l.tp, 1,
           {"--tensor-model-parallel-size", "model.tensor_model_parallel_size"});
  run.size("layout.pp", l.pp, 1,
           {"--pipeline-model-parallel-size", "model.pipeline_model_parallel_size"});
  run.size("layout.cp", l.cp, 1, {"--context-parallel-size", "model.context_parallel_size"});
  run.size("layout.ep", l.ep, 1,
           {"--expert-model-parallel-size", "model.expert_model_parallel_size"});
  run.size("layout.etp", l.etp, 1,
           {"--expert-tensor-parallel-size", "model.expert_tensor_parallel_size"});
  run.size(
      "layout.vpp", l.vpp, 1,
      {"--num-virtual-stages-per-pipeline-rank", "model.virtual_pipeline_model_parallel_size"});
  run.sequence_parallel(l);
  run.recompute(l);
  run.stated_string("layout.dispatcher", l.dispatcher,
                    {"--moe-token-dispatcher-type", "model.moe_token_dispatcher_type"});
  run.stated_integer("layout.max_tokens_per_gpu", l.max_tokens_per_gpu, {"--max-tokens-per-gpu"});
  run.stated_integer("layout.rows_per_microbatch", l.rows_per_microbatch,
                     {"--micro-batch-size", "train.micro_batch_size"});
  run.stated_integer("workload.global_batch", r.workload.global_batch,
                     {"--global-batch-size", "train.global_batch_size"});
  run.stated_integer("result.steps_per_run", r.result.steps_per_run,
                     {"--num-rollout", "--train-iters", "train.train_iters"});
  run.gpu_count(r.gpu);
}

}  // namespace openrecipes
