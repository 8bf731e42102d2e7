#include "layout/pipeline_stages.h"

#include <algorithm>

namespace openrecipes {
namespace {

// The layout's placement, or (when Megatron-LM would refuse it) layers / PP decoder layers per
// stage spread evenly over its chunks, the embedding first and the loss and MTP layers last.
PipelinePlacement placement_or_even(const ModelShape& model, const Layout& layout) {
  if (std::optional<PipelinePlacement> placement = place_layers(model, layout)) return *placement;
  const int pp = std::max(layout.pp, 1);
  const int vpp = std::max(layout.vpp, 1);
  PipelinePlacement even{pp, vpp, std::vector<PipelineChunk>(static_cast<std::size_t>(pp * vpp))};
  for (PipelineChunk& chunk : even.chunks) chunk.decoder_layers = model.layers / pp / vpp;
  for (int p = 0; p < pp; ++p) {
    even.chunks[static_cast<std::size_t>(p)].decoder_layers += model.layers / pp % vpp;
  }
  even.chunks.front().has_embedding = true;
  even.chunks.back().has_loss = true;
  even.chunks.back().mtp_layers = model.mtp_layers;
  return even;
}

}  // namespace

int smallest_chunk_layers(const ModelShape& model, const Layout& layout) {
  PipelinePlacement placement = placement_or_even(model, layout);
  int smallest = 0;
  for (const PipelineChunk& chunk : placement.chunks) {
    if (chunk.decoder_layers > 0 && (smallest == 0 || chunk.decoder_layers < smallest))
      smallest = chunk.decoder_layers;
  }
  return std::max(1, smallest);
}

int largest_chunk_layers(const ModelShape& model, const Layout& layout) {
  PipelinePlacement placement = placement_or_even(model, layout);
  int largest = 0;
  for (const PipelineChunk& chunk : placement.chunks)
    largest = std::max(largest, chunk.decoder_layers);
  return largest;
}

std::vector<PipelineStage> pipeline_stages(const ModelShape& model, const Layout& layout,
                                           int microbatches) {
  const PipelinePlacement placement = placement_or_even(model, layout);
  const int pp = placement.pp;
  const int vpp = placement.vpp;
  std::vector<PipelineStage> stages(static_cast<std::size_t>(pp));
  for (int i = 0; i < pp; ++i) {
    PipelineStage& s = stages[static_cast<std::size_t>(i)];
    s.index = i;
    s.has_embedding = i == 0;
    s.has_output = i == pp - 1;
    s.layers = placement.stage_decoder_layers(i);
    s.mtp_layers = placement.stage_mtp_layers(i);
    for (int v = 0; v < vpp; ++v) s.chunks.push_back(placement.at(i, v));
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
