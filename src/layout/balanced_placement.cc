// balanced_placement: of the placements Megatron-LM accepts for a PP x VPP pipeline, the one
// whose largest chunk counts the fewest layers, in the simplest form that reaches it.
#include <algorithm>
#include <tuple>

#include "layout/pipeline_layout.h"

namespace openrecipes {
namespace {

// The fewest layers the largest chunk can count: the decoder layers plus the embedding and the
// loss (one layer each) over PP x VPP chunks, rounded up.
int lower_bound_layers(int layers, int chunks) { return (layers + 2 + chunks - 1) / chunks; }

// A choice for `model`'s layers on `pp` x `vpp` when `choice`'s form is legal there, with its
// largest chunk's counted layers; nullopt otherwise.
std::optional<PlacementChoice> try_choice(const ModelShape& model, int pp, int vpp,
                                          PlacementChoice choice) {
  Layout layout;
  layout.pp = pp;
  layout.vpp = vpp;
  choice.apply_to(layout);
  std::optional<PipelinePlacement> placement = place_layers(model, layout);
  if (!placement) return std::nullopt;
  choice.largest_chunk_layers = placement->largest_chunk_counted_layers();
  return choice;
}

// The most balanced first/last split: the smallest largest chunk, then the smallest largest
// stage, then first and last closest, then the larger first (the last stage also runs the loss).
std::optional<PlacementChoice> best_split(const ModelShape& model, int pp, int vpp) {
  if (pp < 2) return std::nullopt;
  std::optional<PlacementChoice> best;
  std::tuple<int, int, int, int> best_key;
  for (int first = vpp; first < model.layers; first += vpp) {
    for (int last = vpp; first + last <= model.layers; last += vpp) {
      Layout layout;
      layout.pp = pp;
      layout.vpp = vpp;
      layout.layer_split = LayerSplit{first, last};
      if (!placement_is_legal(model, layout)) continue;
      // The first chunk holds the embedding, the last the loss; the middle stages are even.
      const int middle = pp > 2 ? (model.layers - first - last) / (pp - 2) : 0;
      const int chunk = std::max({first / vpp + 1, last / vpp + 1, middle / vpp});
      const int stage = std::max({first + 1, last + 1, middle});
      std::tuple<int, int, int, int> key{chunk, stage, std::abs(first - last), -first};
      if (!best || key < best_key) {
        best = PlacementChoice{layout.layer_split, false, false, "", std::get<0>(key)};
        best_key = key;
      }
    }
  }
  return best;
}

// Chunks in the order they give up a layer when the bound leaves some lighter: round r takes
// the last stage's chunk VPP - 1 - r, the first stage's chunk r, then the other stages from the
// second-to-last inwards, so that the lighter chunks fall on different stages.
std::vector<std::size_t> lightening_order(int pp, int vpp) {
  std::vector<int> stages;
  for (int low = 0, high = pp - 1; low <= high; ++low, --high) {
    stages.push_back(high);
    if (low != high) stages.push_back(low);
  }
  std::vector<std::size_t> order;
  for (int r = 0; r < vpp; ++r) {
    for (int stage : stages) {
      const int v = stage == 0 && pp > 1 ? r : vpp - 1 - r;
      order.push_back(static_cast<std::size_t>(v * pp + stage));
    }
  }
  return order;
}

// An explicit string whose every chunk counts the bound's layers, or one fewer where the total
// falls short, the lighter chunks in lightening_order.
PlacementChoice string_choice(const ModelShape& model, int pp, int vpp) {
  const int chunks = pp * vpp;
  const int bound = lower_bound_layers(model.layers, chunks);
  std::vector<PipelineChunk> layout(static_cast<std::size_t>(chunks));
  layout.front().has_embedding = true;
  layout.back().has_loss = true;
  for (PipelineChunk& chunk : layout) chunk.decoder_layers = bound - chunk.counted_layers();
  int spare = bound * chunks - (model.layers + 2);
  for (std::size_t i : lightening_order(pp, vpp)) {
    if (spare == 0) break;
    if (layout[i].decoder_layers > 0) {
      --layout[i].decoder_layers;
      --spare;
    }
  }
  return PlacementChoice{std::nullopt, false, false, pipeline_layout_text(layout), bound};
}

}  // namespace

std::optional<PlacementChoice> balanced_placement(const ModelShape& model, int pp, int vpp) {
  if (pp < 1 || vpp < 1 || (vpp > 1 && pp < 2) || model.layers < 1) return std::nullopt;
  ModelShape counted = model;
  counted.mtp_layers = 0;  // the catalog trains without the MTP layers
  std::vector<std::optional<PlacementChoice>> candidates = {
      try_choice(counted, pp, vpp, {}),
      try_choice(counted, pp, vpp, {std::nullopt, true, false, "", 0}),
      try_choice(counted, pp, vpp, {std::nullopt, false, true, "", 0}),
      try_choice(counted, pp, vpp, {std::nullopt, true, true, "", 0}),
      best_split(counted, pp, vpp),
      string_choice(counted, pp, vpp),
  };
  std::optional<PlacementChoice> best;
  for (const std::optional<PlacementChoice>& c : candidates) {
    if (c && (!best || c->largest_chunk_layers < best->largest_chunk_layers)) best = c;
  }
  return best;
}

}  // namespace openrecipes
