// What `openrecipes plan` reports, as values built by the library and written as text or JSON:
// the ranked search for a model on a cluster beside the catalog's own recipes (docs/planner.md),
// or one given layout explained. The CLI resolves its flags (layout_request.h), calls
// plan_layouts or plan_one_layout, and prints one of the writers below.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "plan/layout_prediction.h"
#include "plan/layout_request.h"
#include "plan/layout_search.h"
#include "plan/prediction_band.h"
#include "plan/speed_calibration.h"

namespace openrecipes {

/// A catalog recipe of the planned model and GPU type, predicted on its own layout.
struct CatalogComparison {
  const MeasuredLayout* measured = nullptr;  ///< into the caller's measured layouts
  LayoutPrediction prediction;
};

/// The ranked search and what it is compared with. Pointers point into the caller's measured
/// layouts and calibration, which must outlive the plan.
struct LayoutPlan {
  std::string model_name;
  ClusterShape cluster;
  PlanWorkload workload;
  MemoryOptions memory;
  LayoutSearchResult search;
  std::vector<const MeasuredLayout*>
      ranked_measured;  ///< per ranked layout, the recipe measured on it, or null
  std::vector<CatalogComparison> catalog;  ///< the model's recipes on this GPU type
  const SpeedCalibration* calibration = nullptr;
  std::size_t calibrated_on = 0;             ///< measured layouts the speed model was fitted on
  std::vector<PredictionBand> ranked_bands;  ///< per ranked layout, its error band
  /// the fastest layout measured (catalog or published) for this model and GPU type, or null
  const MeasuredLayout* best_measured = nullptr;
};

/// One given layout predicted and explained.
struct OneLayoutPlan {
  std::string model_name;
  ClusterShape cluster;
  PlanWorkload workload;
  LayoutPrediction prediction;
  const MeasuredLayout* measured = nullptr;  ///< a recipe measured on exactly this layout, or null
  PredictionBand band;                       ///< the prediction's error band
  const MeasuredLayout* best_measured = nullptr;  ///< as in LayoutPlan
  bool placement_chosen = false;  ///< the placement is balanced_placement's (none was given)
};

/// A catalog recipe or published run measured on exactly `layout` for `model` (name), `cluster`
/// (GPU type and count) and `workload` (row tokens, global batch, precision, routing), or null.
const MeasuredLayout* measured_match(const std::vector<MeasuredLayout>& measured,
                                     const std::string& model, const ClusterShape& cluster,
                                     const PlanWorkload& workload, const Layout& layout);

/// Searches every layout of `request` (search_layouts, keeping `top`) with the calibrated
/// parameters, marks the ranked layouts a recipe was measured on, gives each its error band
/// (prediction_band), finds the best measured layout of the pair, and predicts the model's
/// catalog recipes on this GPU type on their own layouts.
LayoutPlan plan_layouts(const PlanRequest& request, const std::vector<MeasuredLayout>& measured,
                        const SpeedCalibration& calibration, int top);

/// Predicts `request.layout` (which must be set and legal) with `calibration`'s parameters, finds
/// a layout measured on it, and gives the prediction's band (`calibration`'s rows are
/// `measured`'s).
OneLayoutPlan plan_one_layout(const PlanRequest& request,
                              const std::vector<MeasuredLayout>& measured,
                              const SpeedCalibration& calibration);

/// The plan as JSON: the request, searched counts, ranked layouts (rank, measured), catalog
/// recipes, rejections by rule and by memory, and the calibration.
nlohmann::json layout_plan_to_json(const LayoutPlan& plan);

/// The plan as text: a headline, the ranked table, the catalog recipes measured beside predicted,
/// with `explain` the rejections, and what the memory model leaves out.
std::string layout_plan_text(const LayoutPlan& plan, bool explain);

/// One layout as JSON: prediction_to_json with details, `measured` (recipe and tokens/s per
/// GPU, or null) and `placement_chosen`.
nlohmann::json one_layout_plan_to_json(const OneLayoutPlan& plan);

/// One layout as text: the headline, its placement when not the even split (and whether it was
/// chosen), the measured figure when a recipe ran it, and the explanation
/// (prediction_explanation_text).
std::string one_layout_plan_text(const OneLayoutPlan& plan);

}  // namespace openrecipes
