// What `openrecipes export` writes, as one library call per source: a catalog recipe's own
// command for slime, Megatron-LM or Megatron-Bridge, or a planned recipe draft for a layout the
// user asked for (resolved and checked by plan/layout_request.h, so export refuses the layouts
// plan refuses).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/ranking.h"
#include "export/export_source.h"
#include "plan/layout_prediction.h"
#include "plan/layout_request.h"

namespace openrecipes {

/// The framework a draft is written for (`--to`).
enum class ExportTarget { kSlime, kMegatronLm, kMegatronBridge };

/// Reads `--to`: "slime", "megatron-lm" or "megatron-bridge"; nullopt otherwise.
std::optional<ExportTarget> export_target(const std::string& text);

/// A catalog recipe's command for `target`: slime_command, megatron_lm_command or
/// megatron_bridge_recipe of `source`.
std::string export_recipe_text(const ExportSource& source, ExportTarget target,
                               const ArgumentRules& rules);

/// The verified recipe of `model_name` with the highest measured tokens/s per GPU in `recipes`
/// (rank_recipes' order), or null.
const CatalogRecipe* best_verified_recipe(const std::vector<CatalogRecipe>& recipes,
                                          const std::string& model_name);

/// A planned draft and the prediction it carries.
struct LayoutDraft {
  std::string text;
  LayoutPrediction prediction;  ///< memory.fits false: the draft says so
};

/// A recipe whose settings (optimizer, schedule, env, rows, command) a planned draft takes in place
/// of the model's best verified recipe: `openrecipes tune` writes every candidate from its
/// reference, so that the two differ only in the layout.
struct DraftSettings {
  const Recipe* recipe = nullptr;  ///< null: the model's best verified recipe
  std::string path;                ///< the recipe's path, for the draft's comments
};

/// The planned draft of `request` (its layout set and legal) for `target`: the settings
/// (optimizer, schedule, env, rows, command) of `settings.recipe` when given, else of the model's
/// best verified recipe in `recipes` when the model is in `catalog`. The draft runs that recipe's
/// run settings (its overlaps, flex backend and gradient dtype) with those `request.run_settings`
/// gives on top: each switch given replaces the recipe's argument for the same setting, in either
/// sense, or is added; a backend given replaces the recipe's. A switch only the recipe runs that
/// makes the layout illegal (--moe-shared-expert-overlap beside the flex dispatcher, rule
/// mesh.shared_expert_overlap) is left out, so export never refuses a layout plan allows. The
/// layout is predicted under exactly the settings the draft runs (with the calibrated `speed`
/// parameters), and a comment names the switches taken from the recipe and any left out
/// (run_settings_note). Written by planned_recipe_yaml (slime, Megatron-LM) or
/// megatron_bridge_recipe.
LayoutDraft export_layout_draft(const PlanRequest& request, const Catalog& catalog,
                                const std::vector<CatalogRecipe>& recipes,
                                const SpeedParameters& speed, const ArgumentRules& rules,
                                ExportTarget target, const DraftSettings& settings = {});

}  // namespace openrecipes
