#include "export/export_draft.h"

#include "export/megatron_bridge_recipe.h"
#include "export/megatron_lm_command.h"
#include "export/planned_recipe.h"
#include "export/slime_command.h"
#include "plan/catalog_measurements.h"

namespace openrecipes {

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
  // The draft's command carries the settings recipe's run settings (its overlaps, BF16
  // gradients): the prediction assumes them too.
  PlanWorkload workload = request.workload;
  if (settings) apply_recipe_run_settings(settings->run, workload);
  draft.prediction = predict_layout(request.model.shape, request.cluster, workload, *request.layout,
                                    speed, request.memory);
  ExportSource source =
      export_source_from_layout(request.model.shape, model, request.cluster, request.workload,
                                *request.layout, settings, settings_path, rules);
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
