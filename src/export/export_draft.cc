#include "export/export_draft.h"

#include <fmt/format.h>

#include <algorithm>

#include "export/megatron_bridge_recipe.h"
#include "export/megatron_lm_command.h"
#include "export/planned_recipe.h"
#include "export/slime_command.h"
#include "layout/layout_rules.h"
#include "plan/catalog_measurements.h"
#include "plan/run_setting_flags.h"

namespace openrecipes {
namespace {

// The argument of `source`'s command that sets the rule (rules/arguments.yaml) named `name`, in
// either sense (a spelling or a negation), or null.
CommandArgument* find_argument(ExportSource& source, const ArgumentRules& rules,
                               const std::string& name) {
  for (std::vector<CommandArgument>* list :
       {&source.model_arguments, &source.training_arguments, &source.other_arguments}) {
    for (CommandArgument& argument : *list) {
      SpellingMatch match = rules.find_spelling(argument.flag);
      if (match.rule && match.rule->name == name) return &argument;
    }
  }
  return nullptr;
}

// Removes `argument` (an element of one of `source`'s argument lists, found by find_argument).
void remove_argument(ExportSource& source, const CommandArgument* argument) {
  for (std::vector<CommandArgument>* list :
       {&source.model_arguments, &source.training_arguments, &source.other_arguments}) {
    std::erase_if(*list, [&](const CommandArgument& a) { return &a == argument; });
  }
}

// Whether `argument` (which sets the switch's setting, in either sense) switches it on: it is
// spelled in the switch flag's own sense (`--grad-reduce-in-bf16`, not its negation
// `--accumulate-allreduce-grads-in-fp32`) and its value, if any, is not false.
bool switches_on(const CommandArgument& argument, const RunSwitch& s, const ArgumentRules& rules) {
  return rules.find_spelling(argument.flag).negated == rules.find_spelling(s.flag).negated &&
         (argument.values.empty() || switch_value_on(argument.values[0]));
}

// The run settings a planned draft runs, and what the draft says of them.
struct DraftRunSettings {
  PlanWorkload workload;
  std::vector<std::string> from_recipe;  ///< switches on though no flag gave them
  std::string dropped_reason;            ///< the rule a dropped switch broke, in words
};

// The run settings a planned draft runs: its settings recipe's (apply_recipe_run_settings) with
// the flags `request` was given on top (add_given_run_settings). A switch only the recipe turns on
// that makes the layout illegal (its --moe-shared-expert-overlap beside the flex dispatcher, rule
// mesh.shared_expert_overlap) is switched off: each such switch whose removal mends a broken rule,
// in run_switches' order, then, should the layout still be illegal, every one left. The request's
// flags alone were checked legal, so the draft's settings always are.
DraftRunSettings draft_run_settings(const PlanRequest& request, const Recipe& settings) {
  DraftRunSettings out{request.workload, {}, ""};
  apply_recipe_run_settings(settings.run, out.workload);
  add_given_run_settings(request.run_settings, out.workload);
  auto broken = [&] {
    return check_layout(request.model.shape, request.cluster, out.workload, *request.layout);
  };
  auto recipe_only = [&](const RunSwitch& s) {
    return s.on(out.workload) && !(request.run_settings.*s.given);
  };
  // The first of `before`'s rules that `after` no longer breaks, in words.
  auto mended = [](const std::vector<LayoutViolation>& before,
                   const std::vector<LayoutViolation>& after) {
    for (const LayoutViolation& v : before) {
      if (std::none_of(after.begin(), after.end(),
                       [&](const LayoutViolation& w) { return w.rule == v.rule; }))
        return fmt::format("{}: {}", layout_rule_id(v.rule), v.message);
    }
    return std::string();
  };
  std::vector<LayoutViolation> now = broken();
  // Switches off, in run_switches' order while the layout stays illegal, each switch only the
  // recipe turns on; with `only_mending`, only one whose removal mends a broken rule.
  auto drop_recipe_switches = [&](bool only_mending) {
    for (const RunSwitch& s : run_switches()) {
      if (now.empty() || !recipe_only(s)) continue;
      s.set(out.workload, false);
      std::vector<LayoutViolation> without = broken();
      std::string reason = mended(now, without);
      if (reason.empty() && only_mending) {
        s.set(out.workload, true);  // not this switch's rule: the recipe's setting stays
        continue;
      }
      if (!reason.empty()) out.dropped_reason = reason;
      now = std::move(without);
    }
  };
  drop_recipe_switches(true);
  drop_recipe_switches(false);
  for (const RunSwitch& s : run_switches())
    if (recipe_only(s)) out.from_recipe.push_back(s.flag);
  return out;
}

// Makes the draft's command run exactly `workload`'s run settings (draft_run_settings), the ones
// its prediction assumes: each switch on is written in place of the settings recipe's argument
// for the same setting, in either sense (`--grad-reduce-in-bf16` replaces
// `--accumulate-allreduce-grads-in-fp32`, its negation in the rules), or added; a switch the
// recipe turns on that `workload` has off is taken out (dropped_run_settings). Where the layout
// uses the flex dispatcher, the backend is `workload`'s: HybridEP written, or the recipe's
// HybridEP replaced by DeepEP when the flags give it.
void set_run_arguments(const PlanWorkload& workload, const Layout& layout,
                       const ArgumentRules& rules, ExportSource& source) {
  for (const RunSwitch& s : run_switches()) {
    SpellingMatch match = rules.find_spelling(s.flag);
    CommandArgument* written =
        match.rule ? find_argument(source, rules, match.rule->name) : nullptr;
    if (s.on(workload)) {
      if (written) {
        *written = {s.flag, {}};
      } else {
        source.other_arguments.push_back({s.flag, {}});
      }
    } else if (written && switches_on(*written, s, rules)) {
      source.dropped_run_settings.push_back(*written);
      remove_argument(source, written);
    }
  }
  if (layout.dispatcher != "flex") return;  // the backend is the flex dispatcher's alone
  const std::string value = workload.hybridep ? "hybridep" : "deepep";
  if (CommandArgument* backend = find_argument(source, rules, "moe_flex_dispatcher_backend")) {
    *backend = {"--moe-flex-dispatcher-backend", {value}};
  } else if (workload.hybridep) {
    source.other_arguments.push_back({"--moe-flex-dispatcher-backend", {value}});
  }
}

}  // namespace

std::optional<ExportTarget> export_target(const std::string& text) {
  if (text == "slime") return ExportTarget::kSlime;
  if (text == "megatron-lm") return ExportTarget::kMegatronLm;
  if (text == "megatron-bridge") return ExportTarget::kMegatronBridge;
  return std::nullopt;
}

std::string export_recipe_text(const ExportSource& source, ExportTarget target,
                               const ArgumentRules& rules) {
  switch (target) {
    case ExportTarget::kSlime:
      return slime_command(source);
    case ExportTarget::kMegatronLm:
      return megatron_lm_command(source);
    case ExportTarget::kMegatronBridge:
      break;
  }
  return megatron_bridge_recipe(source, rules);
}

const CatalogRecipe* best_verified_recipe(const std::vector<CatalogRecipe>& recipes,
                                          const std::string& model_name) {
  const CatalogRecipe* best = nullptr;
  for (const CatalogRecipe& recipe : recipes) {
    if (recipe.recipe.status == "verified" && recipe.recipe.model == model_name &&
        (!best ||
         recipe.recipe.result.tokens_per_s_per_gpu > best->recipe.result.tokens_per_s_per_gpu)) {
      best = &recipe;
    }
  }
  return best;
}

LayoutDraft export_layout_draft(const PlanRequest& request, const Catalog& catalog,
                                const std::vector<CatalogRecipe>& recipes,
                                const SpeedParameters& speed, const ArgumentRules& rules,
                                ExportTarget target, const DraftSettings& settings_override) {
  const Model* model = request.model.in_catalog ? catalog.find_model(request.model.name) : nullptr;
  const CatalogRecipe* best = model ? best_verified_recipe(recipes, model->name) : nullptr;
  const Recipe* settings = settings_override.recipe ? settings_override.recipe
                           : best                   ? &best->recipe
                                                    : nullptr;
  std::string settings_path = settings_override.recipe ? settings_override.path
                              : best                   ? best->catalog_path
                                                       : "";
  LayoutDraft draft;
  // The draft runs its settings recipe's run settings with the flags given on top, and is
  // predicted under exactly those; without a settings recipe, under the flags alone.
  DraftRunSettings run = settings ? draft_run_settings(request, *settings)
                                  : DraftRunSettings{request.workload, {}, ""};
  draft.prediction = predict_layout(request.model.shape, request.cluster, run.workload,
                                    *request.layout, speed, request.memory);
  ExportSource source =
      export_source_from_layout(request.model.shape, model, request.cluster, run.workload,
                                *request.layout, settings, settings_path, rules);
  source.recipe_run_settings = run.from_recipe;
  source.dropped_run_settings_reason = run.dropped_reason;
  set_run_arguments(run.workload, *request.layout, rules, source);
  switch (target) {
    case ExportTarget::kSlime:
      draft.text = planned_recipe_yaml(source, draft.prediction, slime_command(source));
      break;
    case ExportTarget::kMegatronLm:
      draft.text = planned_recipe_yaml(source, draft.prediction, megatron_lm_command(source));
      break;
    case ExportTarget::kMegatronBridge:
      draft.text = megatron_bridge_recipe(source, rules, &draft.prediction);
      break;
  }
  return draft;
}

}  // namespace openrecipes
