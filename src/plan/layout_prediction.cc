#include "plan/layout_prediction.h"

#include "figures/layout_label.h"
#include "layout/layout_rules.h"

namespace openrecipes {

LayoutPrediction predict_layout(const ModelShape& model, const ClusterShape& cluster,
                                const PlanWorkload& workload, Layout layout,
                                const SpeedParameters& parameters,
                                const MemoryOptions& memory_options) {
  layout.dp = implied_data_parallel(cluster, layout);
  layout.label = layout_label(layout);
  LayoutPrediction prediction;
  prediction.memory = estimate_memory(model, cluster, workload, layout, memory_options);
  prediction.speed = estimate_speed(model, cluster, workload, layout, parameters);
  prediction.layout = std::move(layout);
  return prediction;
}

}  // namespace openrecipes
