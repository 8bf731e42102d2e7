#include "layout/pipeline_stages.h"

#include <algorithm>

namespace openrecipes {
namespace {

// Decoder layers on stage `index`: layer_split's first and last with the middle stages even, or
// layers / PP.
int stage_layers(const ModelShape& model, const Layout& layout, int index) {
  const int pp = std::max(layout.pp, 1);
  if (!layout.layer_split || pp < 2) return model.layers / pp;
  if (index == 0) return layout.layer_split->first;
  if (index == pp - 1) return layout.layer_split->last;
  return (model.layers - layout.layer_split->first - layout.layer_split->last) / (pp - 2);
}

}  // namespace

int smallest_chunk_layers(const ModelShape& model, const Layout& layout) {
  int smallest = stage_layers(model, layout, 0);
  for (int i = 1; i < std::max(layout.pp, 1); ++i)
    smallest = std::min(smallest, stage_layers(model, layout, i));
  return std::max(1, smallest / std::max(layout.vpp, 1));
}

std::vector<PipelineStage> pipeline_stages(const ModelShape& model, const Layout& layout,
                                           int microbatches) {
  const int pp = std::max(layout.pp, 1);
  const int vpp = std::max(layout.vpp, 1);
  std::vector<PipelineStage> stages(static_cast<std::size_t>(pp));
  for (int i = 0; i < pp; ++i) {
    PipelineStage& s = stages[static_cast<std::size_t>(i)];
    s.index = i;
    s.has_embedding = i == 0;
    s.has_output = i == pp - 1;
    s.layers = stage_layers(model, layout, i);
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
