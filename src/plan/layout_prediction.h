// A layout's predicted figures: the memory model and the calibrated speed model together.
#pragma once

#include "catalog/catalog.h"
#include "catalog/recipe.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"
#include "plan/memory_model.h"
#include "plan/speed_model.h"

namespace openrecipes {

/// What the planner predicts for one legal layout.
struct LayoutPrediction {
  Layout layout;  ///< dp filled in, label set (figures/layout_label.h)
  MemoryEstimate memory;
  SpeedEstimate speed;
};

/// Predicts `layout` (legal: check_layout passes) with the memory model and the speed model under
/// `parameters`. Fills layout.dp and layout.label.
LayoutPrediction predict_layout(const ModelShape& model, const ClusterShape& cluster,
                                const PlanWorkload& workload, Layout layout,
                                const SpeedParameters& parameters,
                                const MemoryOptions& memory_options = {});

}  // namespace openrecipes
