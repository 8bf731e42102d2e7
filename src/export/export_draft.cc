#include "export/export_draft.h"

#include "export/megatron_bridge_recipe.h"
#include "export/megatron_lm_command.h"
#include "export/planned_recipe.h"
#include "export/slime_command.h"
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
  const bool value_off =
      !argument.values.empty() && (argument.values[0] == "false" || argument.values[0] == "False");
  return rules.find_spelling(argument.flag).negated == rules.find_spelling(s.flag).negated &&
         !value_off;
}

// Makes the draft's command run exactly `workload`'s run settings, the ones its prediction
// assumes: each switch on is written (replacing the settings recipe's argument for the same
// setting, in either sense: `--grad-reduce-in-bf16` replaces
// `--accumulate-allreduce-grads-in-fp32`, its negation in the rules) or added; a switch the
// recipe turns on that `workload` has off is taken out and named (dropped_run_settings), and so is
// a HybridEP backend where the flex layout is predicted with DeepEP. The flex backend is written
// where the layout uses the flex dispatcher and `workload` runs HybridEP.
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
  CommandArgument* backend = find_argument(source, rules, "moe_flex_dispatcher_backend");
  if (workload.hybridep) {
    if (backend) {
      *backend = {"--moe-flex-dispatcher-backend", {"hybridep"}};
    } else {
      source.other_arguments.push_back({"--moe-flex-dispatcher-backend", {"hybridep"}});
    }
  } else if (backend && !backend->values.empty() && backend->values[0] == "hybridep") {
    source.dropped_run_settings.push_back(*backend);
    remove_argument(source, backend);
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
  // The draft runs, and is predicted under, the run settings of the request: plan's flags (and
  // under tune, its reference's), not whatever else its settings recipe switches on, so that a
  // command plan printed exports the run plan predicted.
  draft.prediction = predict_layout(request.model.shape, request.cluster, request.workload,
                                    *request.layout, speed, request.memory);
  ExportSource source =
      export_source_from_layout(request.model.shape, model, request.cluster, request.workload,
                                *request.layout, settings, settings_path, rules);
  set_run_arguments(request.workload, *request.layout, rules, source);
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
