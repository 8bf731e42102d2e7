#include "layout/pipeline_stages.h"

#include <algorithm>
#include <string>

namespace openrecipes {
namespace {

// The layout's placement, or (when Megatron-LM would refuse it) layers / PP decoder layers per
// stage spread evenly over its chunks, the embedding first and the loss and MTP layers last.
PipelinePlacement build_placement(const ModelShape& model, const Layout& layout) {
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

// What a placement depends on besides the layout's --pipeline-model-parallel-layout string,
// which the cache compares on its own (copying it into every key would allocate).
struct PlacementKey {
  int layers = -1, mtp_layers = 0, pp = 0, vpp = 0, first = 0, last = 0;
  bool split = false, embedding = false, loss = false;
  bool operator==(const PlacementKey&) const = default;
};

// build_placement of `layout`, from a one-entry cache: the memory and speed models ask for the
// same placement for every size of a mesh the planner tries, and an allocation each time would
// cost the search more than the models do. The reference is valid until the next call on this
// thread.
const PipelinePlacement& cached_placement(const ModelShape& model, const Layout& layout) {
  thread_local PlacementKey last_key;
  thread_local std::string last_pipeline_layout;
  thread_local PipelinePlacement last;
  PlacementKey key{model.layers,
                   model.mtp_layers,
                   layout.pp,
                   layout.vpp,
                   layout.layer_split ? layout.layer_split->first : 0,
                   layout.layer_split ? layout.layer_split->last : 0,
                   layout.layer_split.has_value(),
                   layout.account_for_embedding_in_pipeline_split,
                   layout.account_for_loss_in_pipeline_split};
  if (!(key == last_key && layout.pipeline_layout == last_pipeline_layout)) {
    last = build_placement(model, layout);
    last_key = key;
    last_pipeline_layout = layout.pipeline_layout;
  }
  return last;
}

}  // namespace

PipelinePlacement pipeline_placement(const ModelShape& model, const Layout& layout) {
  return cached_placement(model, layout);
}

int smallest_chunk_layers(const ModelShape& model, const Layout& layout) {
  const PipelinePlacement& placement = cached_placement(model, layout);
  int smallest = 0;
  for (const PipelineChunk& chunk : placement.chunks) {
    if (chunk.decoder_layers > 0 && (smallest == 0 || chunk.decoder_layers < smallest))
      smallest = chunk.decoder_layers;
  }
  return std::max(1, smallest);
}

int largest_chunk_layers(const ModelShape& model, const Layout& layout) {
  const PipelinePlacement& placement = cached_placement(model, layout);
  int largest = 0;
  for (const PipelineChunk& chunk : placement.chunks)
    largest = std::max(largest, chunk.decoder_layers);
  return largest;
}

std::vector<PipelineStage> pipeline_stages(const ModelShape& model, const Layout& layout,
                                           int microbatches) {
  const PipelinePlacement& placement = cached_placement(model, layout);
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
    s.chunks = vpp;
    for (int v = 0; v < vpp; ++v) {
      const PipelineChunk& chunk = placement.at(i, v);
      s.largest_chunk_layers = std::max(s.largest_chunk_layers, chunk.decoder_layers);
      s.largest_chunk_counted_layers =
          std::max(s.largest_chunk_counted_layers, chunk.counted_layers());
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
