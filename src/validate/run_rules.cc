// The run.layout rule: the command in `run` sets what the layout says, each term through its
// effective value (run_settings.h: the command's flag, else model_script.sets, else the
// framework's default). Flag names are Megatron-LM's (also slime's), plus Megatron-Bridge's
// Hydra-style overrides.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <functional>
#include <set>
#include <string_view>

#include "layout/layout_rules.h"
#include "validate/recipe_rules.h"
#include "validate/run_checks.h"

namespace openrecipes {
namespace {

const std::string kLayoutRule = "run.layout";

class LayoutChecker {
 public:
  explicit LayoutChecker(const RunView& run) : run_(run) {}

  // A size that defaults to `fallback` when neither the command nor the model script sets it.
  void size(const std::string& field, long long layout_value, long long fallback,
            std::initializer_list<std::string_view> names) {
    std::optional<RunSetting> setting = run_.effective(names);
    if (!setting) {
      if (layout_value != fallback) {
        run_.report(
            kLayoutRule, setting, field,
            fmt::format("the run command does not set {} (so it is {})", *names.begin(), fallback),
            fmt::format("{} {}", *names.begin(), layout_value), "no such argument");
      }
      return;
    }
    compare_integer(*setting, field, layout_value, *names.begin());
  }

  // A string checked where it is stated; `fallback` is the framework's default when it is not.
  void string(const std::string& field, const std::string& layout_value,
              std::initializer_list<std::string_view> names,
              std::optional<std::string> fallback = std::nullopt) {
    std::optional<RunSetting> setting = run_.or_default(names, fallback);
    if (setting && setting->value != layout_value) {
      run_.report(kLayoutRule, setting, field,
                  setting->source == SettingSource::kDefault
                      ? fmt::format("{} defaults {} to {}", framework_name(run_.framework()),
                                    *names.begin(), setting->value)
                      : fmt::format("the run command sets {} differently", *names.begin()),
                  layout_value.empty() ? "null" : layout_value, setting->value);
    }
  }

  void sequence_parallel(const Layout& l) {
    std::optional<RunSetting> setting =
        run_.effective({"--sequence-parallel", "model.sequence_parallel"});
    bool on = run_.switch_on({"--sequence-parallel", "model.sequence_parallel"});
    // Megatron-LM turns sequence parallelism off at TP 1 (arguments.py), so only TP > 1 counts.
    bool effective = on && l.tp > 1;
    if (effective != l.sequence_parallel) {
      run_.report(kLayoutRule, setting, "layout.sequence_parallel",
                  l.tp == 1 && l.sequence_parallel
                      ? "sequence parallelism has no effect at TP 1"
                      : "the run command's sequence parallelism disagrees with the layout",
                  l.sequence_parallel ? "true" : "false",
                  fmt::format("{} (--sequence-parallel {} at TP {})", effective ? "true" : "false",
                              on ? "set" : "not set", l.tp));
    }
  }

  void recompute(const Layout& l) {
    std::initializer_list<std::string_view> names = {"--recompute-granularity",
                                                     "model.recompute_granularity"};
    std::optional<RunSetting> granularity = run_.effective(names);
    if (!l.recompute) {
      if (granularity) {
        run_.report(kLayoutRule, granularity, "layout.recompute",
                    "the run command recomputes, the layout does not", "no --recompute-granularity",
                    granularity->value);
      }
      return;
    }
    if (!granularity) {
      run_.report(kLayoutRule, granularity, "layout.recompute.granularity",
                  "the run command does not recompute",
                  "--recompute-granularity " + l.recompute->granularity, "no such argument");
      return;
    }
    string("layout.recompute.granularity", l.recompute->granularity, names);
    required("layout.recompute.method", l.recompute->method,
             {"--recompute-method", "model.recompute_method"});
    if (l.recompute->num_layers) {
      required("layout.recompute.num_layers", fmt::format("{}", *l.recompute->num_layers),
               {"--recompute-num-layers", "model.recompute_num_layers"});
    }
    if (l.recompute->granularity == "selective") recompute_modules(*l.recompute);
  }

  // Selective recompute's modules, as a set: --recompute-modules (its words) or
  // model.recompute_modules (a Python list), else Megatron-Core's default, core_attn alone.
  void recompute_modules(const Recompute& r) {
    std::optional<RunSetting> setting =
        run_.effective({"--recompute-modules", "model.recompute_modules"});
    std::set<std::string> expected(r.modules.begin(), r.modules.end());
    if (expected.empty()) expected.insert("core_attn");
    std::set<std::string> found = {"core_attn"};
    if (setting) {
      found.clear();
      std::string word;
      for (char ch : setting->value + " ") {
        if (std::string_view("[](),'\" ").find(ch) == std::string_view::npos) {
          word += ch;
        } else if (!word.empty()) {
          found.insert(word);
          word.clear();
        }
      }
    }
    if (found != expected) {
      run_.report(kLayoutRule, setting, "layout.recompute.modules",
                  setting ? "the run command recomputes other modules"
                          : "the run command does not set --recompute-modules (so it is "
                            "core_attn alone)",
                  fmt::format("{}", fmt::join(expected, " ")),
                  fmt::format("{}", fmt::join(found, " ")));
    }
  }

  void gpu_count(const RecipeGpu& gpu) {
    auto check = [&](std::initializer_list<std::string_view> nodes,
                     std::initializer_list<std::string_view> per_node) {
      std::optional<RunSetting> n = run_.effective(nodes);
      std::optional<RunSetting> g = run_.effective(per_node);
      std::optional<long long> nodes_value = n ? setting_integer(n->value) : std::nullopt;
      std::optional<long long> per_node_value = g ? setting_integer(g->value) : std::nullopt;
      if (g && per_node_value && *per_node_value != gpu.per_node) {
        run_.report(kLayoutRule, g, "gpu.per_node",
                    fmt::format("the run command sets {} differently", *per_node.begin()),
                    fmt::format("{}", gpu.per_node), g->value);
      }
      if (!nodes_value || !per_node_value) return;
      long long product = 0;
      bool overflow = __builtin_mul_overflow(*nodes_value, *per_node_value, &product);
      if (overflow || product != gpu.count) {
        run_.report(kLayoutRule, n, "gpu.count",
                    "the run command's nodes x GPUs per node disagrees with gpu.count",
                    fmt::format("{}", gpu.count),
                    fmt::format("{} x {}", *nodes_value, *per_node_value));
      }
    };
    check({"--actor-num-nodes"}, {"--actor-num-gpus-per-node"});    // slime
    check({"--nnodes"}, {"--nproc-per-node", "--nproc_per_node"});  // torchrun
  }

 private:
  void required(const std::string& field, const std::string& layout_value,
                std::initializer_list<std::string_view> names) {
    if (!layout_value.empty() && !run_.effective(names)) {
      run_.report(kLayoutRule, std::nullopt, field, "the run command does not set it",
                  fmt::format("{} {}", *names.begin(), layout_value), "no such argument");
      return;
    }
    string(field, layout_value, names);
  }

  void compare_integer(const RunSetting& setting, const std::string& field, long long expected,
                       std::string_view name) {
    check_stated_integer(run_, kLayoutRule, setting, field, expected, name);
  }

  const RunView& run_;
};

// The dispatcher each framework uses when the command states none: Megatron-LM's
// --moe-token-dispatcher-type defaults to allgather (megatron/training/arguments.py), and slime's
// validate_args turns allgather into alltoall, as it always runs variable sequence lengths
// (slime/backends/megatron_utils/arguments.py). A Megatron-Bridge recipe's provider sets its own.
std::optional<std::string> default_dispatcher(RunFramework framework) {
  if (framework == RunFramework::kSlime) return "alltoall";
  if (framework == RunFramework::kMegatronLm) return "allgather";
  return std::nullopt;
}

// For an MoE model the dispatcher must be known: stated, set by the model script, or the
// framework's default.
void check_dispatcher(const RunView& run, const Layout& l, bool moe) {
  std::initializer_list<std::string_view> names = {"--moe-token-dispatcher-type",
                                                   "model.moe_token_dispatcher_type"};
  LayoutChecker(run).string("layout.dispatcher", l.dispatcher, names,
                            moe ? default_dispatcher(run.framework()) : std::nullopt);
  if (moe && !run.or_default(names, default_dispatcher(run.framework()))) {
    run.report(
        kLayoutRule, std::nullopt, "layout.dispatcher",
        fmt::format("{} leaves the dispatcher to the recipe it runs: the command must set it",
                    framework_name(run.framework())),
        "model.moe_token_dispatcher_type=" + (l.dispatcher.empty() ? "..." : l.dispatcher),
        "no such argument");
  }
}

// A run that switches on an overlap (`names`, each spelling) meets the layout rule `rule` that
// the overlap brings (layout/layout_rules.h), reported at the switch's line. `switch_on` sets the
// overlap in the workload the rule is checked under.
void check_overlap_rule(const RunView& run, const Recipe& r, const Model* model,
                        std::initializer_list<std::string_view> names, LayoutRule rule,
                        const std::function<void(PlanWorkload&)>& switch_on) {
  if (!model || !run.switch_on(names)) return;
  ClusterShape cluster;
  if (const Gpu* gpu = run.context().catalog.find_gpu(r.gpu.type)) cluster.gpu = *gpu;
  cluster.gpus = r.gpu.count;
  cluster.per_node = r.gpu.per_node;
  PlanWorkload workload;
  workload.row_tokens = r.workload.row_tokens;
  workload.global_batch = r.workload.global_batch;
  switch_on(workload);
  for (const LayoutViolation& v : check_layout(model->shape, cluster, workload, r.layout)) {
    if (v.rule != rule) continue;
    run.report(layout_rule_id(v.rule), run.effective(names), v.field, v.message, v.expected,
               v.found);
  }
}

// mesh.ep_a2a_overlap: the A2A/1F1B overlap's preconditions.
void check_ep_a2a_overlap(const RunView& run, const Recipe& r, const Model* model) {
  check_overlap_rule(
      run, r, model,
      {"--overlap-moe-expert-parallel-comm", "comm_overlap.overlap_moe_expert_parallel_comm"},
      LayoutRule::kEpA2aOverlap, [](PlanWorkload& w) { w.ep_a2a_overlap = true; });
}

// mesh.shared_expert_overlap: the shared-expert overlap with the alltoall dispatcher (a model with
// shared experts), and never beside the run's EP all-to-all overlap.
void check_shared_expert_overlap(const RunView& run, const Recipe& r, const Model* model) {
  const bool a2a = run.switch_on(
      {"--overlap-moe-expert-parallel-comm", "comm_overlap.overlap_moe_expert_parallel_comm"});
  check_overlap_rule(run, r, model,
                     {"--moe-shared-expert-overlap", "model.moe_shared_expert_overlap"},
                     LayoutRule::kSharedExpertOverlap, [a2a](PlanWorkload& w) {
                       w.shared_expert_overlap = true;
                       w.ep_a2a_overlap = a2a;
                     });
}

// mesh.tp_comm_overlap: TP communication overlap only with TP > 1.
void check_tp_comm_overlap(const RunView& run, const Recipe& r, const Model* model) {
  check_overlap_rule(run, r, model, {"--tp-comm-overlap", "comm_overlap.tp_comm_overlap"},
                     LayoutRule::kTpCommOverlap, [](PlanWorkload& w) { w.tp_comm_overlap = true; });
}

}  // namespace

bool run_is_readable(const RunView& run) {
  for (const Problem& problem : run.command().problems) {
    run.context().report_at(run.position_of_line(problem.position.line), kLayoutRule, "run",
                            "the run command cannot be read: " + problem.message);
  }
  return has_command(run.command());
}

void check_stated_integer(const RunView& run, const std::string& rule, const RunSetting& setting,
                          const std::string& field, long long expected, std::string_view name) {
  std::optional<long long> value = setting_integer(setting.value);
  if (!value) {
    run.report(rule, setting, field, fmt::format("{} must be a literal number", name),
               fmt::format("{}", expected), setting.value.empty() ? "no value" : setting.value);
  } else if (*value != expected) {
    run.report(rule, setting, field, fmt::format("the run command sets {} differently", name),
               fmt::format("{}", expected), setting.value);
  }
}

void check_run_layout(const RunView& run) {
  const Recipe& r = run.context().recipe;
  const Layout& l = r.layout;
  LayoutChecker check(run);
  check.size("layout.tp", l.tp, 1,
             {"--tensor-model-parallel-size", "model.tensor_model_parallel_size"});
  check.size("layout.pp", l.pp, 1,
             {"--pipeline-model-parallel-size", "model.pipeline_model_parallel_size"});
  check.size("layout.cp", l.cp, 1, {"--context-parallel-size", "model.context_parallel_size"});
  check.size("layout.ep", l.ep, 1,
             {"--expert-model-parallel-size", "model.expert_model_parallel_size"});
  check.size("layout.etp", l.etp, 1,
             {"--expert-tensor-parallel-size", "model.expert_tensor_parallel_size"});
  std::initializer_list<std::string_view> vpp_names = {
      "--num-virtual-stages-per-pipeline-rank", "model.virtual_pipeline_model_parallel_size"};
  // With a layout string the virtual stages are its chunks / PP (Megatron-LM's validate_args,
  // megatron/training/arguments.py): a VPP flag is compared only where the run states one.
  if (l.pipeline_layout.empty() || run.effective(vpp_names)) {
    check.size("layout.vpp", l.vpp, 1, vpp_names);
  }
  check.sequence_parallel(l);
  check.recompute(l);
  const Model* model = run.context().catalog.find_model(r.model);
  check_dispatcher(run, l, model && model->shape.is_moe());
  check_ep_a2a_overlap(run, r, model);
  check_tp_comm_overlap(run, r, model);
  check_shared_expert_overlap(run, r, model);
  check.gpu_count(r.gpu);
}

void check_run_rules(const RuleContext& context) {
  RunView run(context);
  if (!run_is_readable(run)) return;
  check_run_layout(run);
  check_run_placement(run);
  check_protocol_terms(run);
  check_microbatch_terms(run);
  check_model_script(run);
  check_model_sizes(run);
  check_offload(run);
}

}  // namespace openrecipes
