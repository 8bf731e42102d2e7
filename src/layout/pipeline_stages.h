// How a layout places the decoder layers on its pipeline stages and virtual chunks, and how many
// micro-batches each stage keeps in flight under Megatron-Core's 1F1B schedule (interleaved when
// VPP > 1).
#pragma once

#include <vector>

#include "catalog/recipe.h"
#include "layout/pipeline_layout.h"
#include "params/model_shape.h"

namespace openrecipes {

/// One pipeline stage: its layers and what else it holds.
struct PipelineStage {
  int index = 0;                 ///< 0-based stage (PP rank)
  int layers = 0;                ///< decoder layers on this stage (all its virtual chunks together)
  bool has_embedding = false;    ///< first stage: the input embedding
  bool has_output = false;       ///< last stage: the output layer, the loss and the MTP layers
  int mtp_layers = 0;            ///< MTP layers on this stage (the last, unless a string says)
  int chunks = 1;                ///< virtual chunks (VPP)
  int largest_chunk_layers = 0;  ///< decoder layers in its largest virtual chunk
  /// Its largest chunk's PipelineChunk::counted_layers (the embedding and the loss one each).
  int largest_chunk_counted_layers = 0;
  /// Micro-batches whose activations the stage holds at its peak, in units of the stage's full
  /// layers: 1F1B holds PP - index; the interleaved schedule holds
  /// PP - index + (PP - 1) / VPP chunks' worth, as Megatron-LM's theoretical_memory_usage.py
  /// scales it (factor 1 + (PP - 1) / (PP x VPP) on the first stage). Capped by the micro-batches
  /// per DP rank.
  double in_flight_microbatches = 1;
};

/// The stages of `layout` for `model`, as place_layers places the layers (an explicit
/// pipeline_layout, a layer_split, the account-for flags, or the even split). `microbatches` is
/// micro-batches per DP rank per step (global batch / (DP x rows per micro-batch)). The layout
/// should be legal (check_layout); when its placement is not, the layers are spread as
/// layers / PP per stage (rounded down) so that callers still get PP stages.
std::vector<PipelineStage> pipeline_stages(const ModelShape& model, const Layout& layout,
                                           int microbatches);

/// Every chunk of `layout`'s placement for `model` (place_layers), or when Megatron-LM would refuse
/// it, layers / PP per stage spread over its chunks (the first chunks taking the remainder).
PipelinePlacement pipeline_placement(const ModelShape& model, const Layout& layout);

/// Decoder layers in the layout's smallest virtual chunk that has any, at least 1: the most
/// layers a full-recompute unit can span (rule mesh.recompute; the planner's recompute choices).
int smallest_chunk_layers(const ModelShape& model, const Layout& layout);

/// Decoder layers in the layout's largest virtual chunk (0 when it has none).
int largest_chunk_layers(const ModelShape& model, const Layout& layout);

}  // namespace openrecipes
