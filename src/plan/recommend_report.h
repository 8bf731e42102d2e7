// What `openrecipes recommend` reports: the request resolved from the user's flags
// (layout_request.h), the recommendation of recommend.h over the catalog's recipes, and writers
// for text and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "plan/layout_request.h"
#include "plan/recommend.h"
#include "plan/speed_calibration.h"

namespace openrecipes {

/// The recommend request for `request` (model, cluster, row tokens) and `goal` ("sft", "pretrain"
/// or "peft"; anything else is sft).
RecommendRequest recommend_request(const PlanRequest& request, const std::string& goal);

/// Recommends over `recipes` (each one whose model `catalog` knows is a candidate) with the
/// `calibration`'s parameters and `memory` headroom, and gives the prediction its band from the
/// calibration's rows (which are `measured`'s). Returns nullopt and a Problem (rule `recommend`)
/// when no recipe fits (recommend_recipe's reason in its words).
std::optional<Recommendation> recommend_from_catalog(
    const RecommendRequest& request, const Catalog& catalog,
    const std::vector<CatalogRecipe>& recipes, const ArgumentRules& rules,
    const SpeedCalibration& calibration, const std::vector<MeasuredLayout>& measured,
    const MemoryOptions& memory, Problems& problems);

/// The recommendation as JSON: the request, the recipe, its match, measured figure, prediction,
/// overrides, checks and advice.
nlohmann::json recommendation_to_json(const RecommendRequest& request,
                                      const Recommendation& recommendation);

/// The recommendation as text for people, ending with the `openrecipes export` command that
/// writes it (`model_text`: the --model as the user wrote it).
std::string recommendation_text(const RecommendRequest& request,
                                const Recommendation& recommendation,
                                const std::string& model_text);

}  // namespace openrecipes
