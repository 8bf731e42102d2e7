#include "export/export_draft.h"

#include <fmt/format.h>

#include "export/megatron_bridge_recipe.h"
#include "export/megatron_lm_command.h"
#include "export/planned_recipe.h"
#include "export/slime_command.h"
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

// The run settings the user's flags give, written into the draft's command so that it runs what
// the prediction assumes (add_given_run_settings): a switch given replaces the settings recipe's
// argument for the same setting (`--grad-reduce-in-bf16` replaces
// `--accumulate-allreduce-grads-in-fp32`, its negation in the rules) or joins the command; a flex
// backend given replaces the recipe's.
void add_given_run_arguments(const RunSettingArguments& given, const ArgumentRules& rules,
                             ExportSource& source) {
  for (const RunSwitch& s : run_switches()) {
    if (!(given.*s.given)) continue;
    const char* flag = s.flag;
    SpellingMatch match = rules.find_spelling(flag);
    CommandArgument* written =
        match.rule ? find_argument(source, rules, match.rule->name) : nullptr;
    if (written) {
      *written = {flag, {}};
    } else {
      source.other_arguments.push_back({flag, {}});
    }
  }
  if (given.flex_backend.empty()) return;
  if (CommandArgument* backend = find_argument(source, rules, "moe_flex_dispatcher_backend")) {
    *backend = {"--moe-flex-dispatcher-backend", {given.flex_backend}};
  } else {
    source.other_arguments.push_back({"--moe-flex-dispatcher-backend", {given.flex_backend}});
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

std::optional<LayoutDraft> export_layout_draft(const PlanRequest& request, const Catalog& catalog,
                                               const std::vector<CatalogRecipe>& recipes,
                                               const SpeedParameters& speed,
                                               const ArgumentRules& rules, ExportTarget target,
                                               Problems& problems,
                                               const DraftSettings& settings_override) {
  const Model* model = request.model.in_catalog ? catalog.find_model(request.model.name) : nullptr;
  const CatalogRecipe* best = model ? best_verified_recipe(recipes, model->name) : nullptr;
  const Recipe* settings = settings_override.recipe ? settings_override.recipe
                           : best                   ? &best->recipe
                                                    : nullptr;
  std::string settings_path = settings_override.recipe ? settings_override.path
                              : best                   ? best->catalog_path
                                                       : "";
  LayoutDraft draft;
  // The draft's command carries the settings recipe's run settings (its overlaps, BF16
  // gradients): the prediction assumes them too.
  PlanWorkload workload = request.workload;
  if (settings) {
    apply_recipe_run_settings(settings->run, workload);
    add_given_run_settings(request.run_settings, workload);
    std::vector<LayoutViolation> violations =
        check_layout(request.model.shape, request.cluster, workload, *request.layout);
    if (!violations.empty()) {
      add_layout_violations(violations, *request.layout, request.model.shape, request.cluster,
                            fmt::format(" under the run settings of {}, the recipe the draft "
                                        "takes its command from",
                                        settings_path),
                            problems);
      return std::nullopt;
    }
  }
  draft.prediction = predict_layout(request.model.shape, request.cluster, workload, *request.layout,
                                    speed, request.memory);
  ExportSource source =
      export_source_from_layout(request.model.shape, model, request.cluster, workload,
                                *request.layout, settings, settings_path, rules);
  add_given_run_arguments(request.run_settings, rules, source);
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
