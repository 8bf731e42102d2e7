// `recommend`: the best measured catalog recipe for a model and GPU, else the nearest one, resized
// to the requested GPUs by Megatron-Bridge's recipe-resizing rules, with every override classed
// (rules/arguments.yaml) and the memory model's verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/ranking.h"
#include "layout/layout_rules.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"
#include "plan/layout_prediction.h"
#include "plan/prediction_band.h"
#include "runs/argument_rules.h"

namespace openrecipes {

/// The training goal (Megatron-Bridge's recipe goals: pretrain, SFT or PEFT). The catalog's recipes
/// are SFT.
enum class TrainingGoal { kSft, kPretrain, kPeft };

/// What is asked for.
struct RecommendRequest {
  std::string model_name;  ///< the catalog name, or the config's name
  std::string family;      ///< the catalog family (models.yaml), or empty for a bare config
  ModelShape model;
  ClusterShape cluster;
  PlanWorkload workload;  ///< row_tokens is the requested sequence length
  TrainingGoal goal = TrainingGoal::kSft;
};

/// A catalog recipe a recommendation can start from.
struct RecipeCandidate {
  const CatalogRecipe* recipe = nullptr;
  std::string family;  ///< its model's family
  ModelShape model;    ///< its model's shape
};

/// How the starting recipe relates to the request, best first.
enum class RecipeMatch { kSameModelAndGpu, kSameModelOtherGpu, kSameFamily, kNearestSize };

/// One setting the recommendation changes from its starting recipe.
struct SettingOverride {
  std::string
      setting;  ///< canonical argument name (rules/arguments.yaml), e.g. tensor_model_parallel_size
  std::string from;
  std::string to;
  std::string argument_class;  ///< execution, convergence, same_math_swap or benign (class_id)
  std::string reason;          ///< the rule's reason, or why the setting changes
};

/// One resizing rule and whether the recommended layout obeys it.
struct ResizeCheck {
  std::string rule;  ///< layout_rule_id, or "memory"
  std::string text;  ///< the rule in words
  bool passed = false;
  std::string detail;  ///< for a failure: the violation (expected, found)
};

/// The recommendation.
struct Recommendation {
  const CatalogRecipe* base = nullptr;
  RecipeMatch match = RecipeMatch::kNearestSize;
  std::string match_text;          ///< in words, e.g. "same model and GPU type"
  Layout layout;                   ///< the resized layout
  bool resized_by_search = false;  ///< the planner chose the layout, not the recipe (layout_reason)
  /// Why the planner's layout replaced the recipe's, in words; empty when the recipe's is kept.
  std::string layout_reason;
  std::vector<SettingOverride> overrides;
  std::vector<ResizeCheck> checks;
  LayoutPrediction prediction;  ///< memory verdict and predicted speed of `layout`
  std::vector<std::string> advice;
  PredictionBand band;  ///< the prediction's error band (filled by recommend_from_catalog)
};

/// Picks the start: the best-ranked recipe (rank_recipes) of the same model and GPU type, else of
/// the same model on another GPU type, else of the same family, else the recipe whose model's N
/// is nearest (log ratio). Resizes its layout to the request: the recipe's sizes with DP implied;
/// CP raised for longer rows so a GPU holds no more tokens than the recipe's max_tokens_per_gpu.
/// The planner's best fitting layout (search_layouts) replaces it when it breaks a rule or does
/// not fit, and, when the recipe measured another model or GPU type, when the planner's best is
/// predicted faster by more than `model_error` (a fraction, the speed model's leave-one-model-out
/// MAPE): a layout is execution only (rules/arguments.yaml), and one tuned for another model is
/// a poor start (Megatron-Bridge's recipe guide: "first try TP/PP/CP/EP ... when optimizing fit or
/// throughput"). Every prediction and the search assume the run settings the start's command
/// switches on (apply_recipe_run_settings: its overlaps and gradient dtype), since the
/// recommendation runs that command. Returns nullopt with a Problem (rule `recommend`, no file: the
/// request came from flags) when the catalog has no verified recipe or no layout fits.
std::optional<Recommendation> recommend_recipe(const RecommendRequest& request,
                                               const std::vector<RecipeCandidate>& candidates,
                                               const ArgumentRules& rules,
                                               const SpeedParameters& speed,
                                               const MemoryOptions& memory, Problems& problems,
                                               double model_error = 0);

/// "sft", "pretrain" or "peft".
std::string goal_name(TrainingGoal goal);

}  // namespace openrecipes
