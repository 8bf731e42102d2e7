#include "plan/pipeline_stages.h"

#include <algorithm>

namespace openrecipes {

std::vector<PipelineStage> pipeline_stages(const ModelShape& model, const Layout& layout, int microbatches) {
  const int pp = std::max(layout.pp, 1);
  const int vpp = std::max(layout.vpp, 1);
  std::vector<PipelineStage> stages(static_cast<std::size_t>(pp));
  for (int i = 0; i < pp; ++i) {
    PipelineStage& s = stages[static_cast<std::size_t>(i)];
    s.index = i;
    s.has_embedding = i == 0;
    s.has_output = i == pp - 1;
    if (layout.layer_split && pp >= 2) {
      int middle = pp > 2 ? (model.layers - layout.layer_split->first - layout.layer_split->last) / (pp - 2) : 0;
      s.layers = i == 0 ? layout.layer_split->first : i == pp - 1 ? layout.layer_split->last : middle;
    } else {
      s.layers = model.layers / pp;
    }
    // Warm-up of 1F1B: stage i runs PP - i forwards before its first backward. Interleaving adds
    // (PP - 1) chunks of 1/VPP of the stage's layers (Narayanan et al. 2021, sec. 2.2;
    // Megatron-LM theoretical_memory_usage.py).
    double in_flight = pp - i;
    if (vpp > 1) in_flight += static_cast<double>(pp - 1) / vpp;
    s.in_flight_microbatches = std::min(in_flight, static_cast<double>(std::max(microbatches, 1)));
  }
  return stages;
}

}  // namespace openrecipes
