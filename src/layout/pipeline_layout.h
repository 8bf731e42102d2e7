// Where a layout puts the model's layers: per pipeline stage and virtual chunk, the decoder
// layers, the MTP layers, the input embedding and the loss, in the four forms Megatron-LM accepts
// (an even split; --account-for-embedding/loss-in-pipeline-split; --decoder-first/last-pipeline-
// num-layers; an explicit --pipeline-model-parallel-layout string), and the most balanced of them
// for a given PP x VPP. Sources: megatron/core/transformer/pipeline_parallel_layer_layout.py (the
// string grammar and its checks), megatron/core/transformer/transformer_config.py
// (TransformerConfig.__post_init__: which forms combine and what divides what),
// megatron/core/transformer/transformer_block.py (get_num_layers_to_build), all NVIDIA/Megatron-LM.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/recipe.h"
#include "params/model_shape.h"

namespace openrecipes {

/// What one virtual chunk of one pipeline stage builds.
struct PipelineChunk {
  int decoder_layers = 0;      ///< decoder (transformer) layers, `t` in the layout string
  int mtp_layers = 0;          ///< multi-token-prediction layers, `m`
  bool has_embedding = false;  ///< the input embedding, `E`
  bool has_loss = false;       ///< the output layer and the loss, `L`

  /// Layers the chunk counts for balance: decoder and MTP layers, plus one for the embedding and
  /// one for the loss, as --account-for-embedding/loss-in-pipeline-split count them.
  int counted_layers() const {
    return decoder_layers + mtp_layers + (has_embedding ? 1 : 0) + (has_loss ? 1 : 0);
  }
  bool operator==(const PipelineChunk&) const = default;
};

/// The layers of every chunk of a PP x VPP pipeline. Chunks are kept in Megatron-LM's order, the
/// order of the layout string: virtual chunk v of stage p at index v x PP + p (layer-id order).
struct PipelinePlacement {
  int pp = 1;   ///< pipeline stages
  int vpp = 1;  ///< virtual chunks per stage
  std::vector<PipelineChunk> chunks;

  /// Virtual chunk `chunk` (0-based) of stage `stage` (0-based).
  const PipelineChunk& at(int stage, int chunk) const {
    return chunks[static_cast<std::size_t>(chunk * pp + stage)];
  }
  /// Decoder layers on `stage`, all its chunks together.
  int stage_decoder_layers(int stage) const;
  /// MTP layers on `stage`.
  int stage_mtp_layers(int stage) const;
  /// The largest chunk's counted_layers.
  int largest_chunk_counted_layers() const;
  /// The largest stage's counted layers (all its chunks).
  int largest_stage_counted_layers() const;
};

/// Parses a --pipeline-model-parallel-layout string into its chunks, in the string's order, as
/// PipelineParallelLayerLayout.parse_str_to_list does: commas are cosmetic, `(X)*N` repeats X
/// (no nesting), `c*N` repeats one character, `|` ends a chunk, and each character is one of E,
/// L, t, m (case-sensitive). Returns nullopt and adds one Problem (field `field`, rule
/// `mesh.pipeline_layout`, message naming the 1-based position in the string, expected, found)
/// for a character outside the grammar, an unclosed or empty group, a `*` without a count, or a
/// string that unrolls to more than 2^20 characters.
std::optional<std::vector<PipelineChunk>> parse_pipeline_layout(const std::string& text,
                                                                const std::string& field,
                                                                Problems& problems);

/// The chunks written in the grammar parse_pipeline_layout reads, runs folded: `t*3` for three
/// decoder layers, `(tt|)*14` for 14 equal chunks; e.g. "Ettt|(tttt|)*14,ttL". Parses back to the
/// same chunks.
std::string pipeline_layout_text(const std::vector<PipelineChunk>& chunks);

/// Which rule a placement breaks (layout_rules.h maps each to its id).
enum class PlacementRule {
  kExclusive,  ///< mesh.placement_exclusive: forms that cannot be combined
  kLayers,     ///< mesh.pp: the stages cover every layer
  kVirtual,    ///< mesh.vpp: VPP needs PP > 1 and divides what it must
  kLayout,     ///< mesh.pipeline_layout: the explicit string places every layer once
};

/// Why a layout's placement is not one Megatron-LM accepts.
struct PlacementError {
  PlacementRule rule = PlacementRule::kLayers;
  std::string field, message, expected, found;
  bool words = true;  ///< false: set only `rule` (cheaper, for the planner's millions of checks)
};

/// The placement `layout` asks for `model` (model.layers decoder layers, model.mtp_layers MTP
/// layers): its explicit pipeline_layout string, else its layer_split, else the even split with the
/// account-for flags, each as Megatron-LM builds it (get_num_layers_to_build). MTP layers go on the
/// last chunk unless the string places them; a string may also leave them out (trained without
/// MTP). Returns nullopt when Megatron-LM would refuse the placement, and then, when `error` is not
/// null, fills it (the first check that fails, in TransformerConfig's order).
std::optional<PipelinePlacement> place_layers(const ModelShape& model, const Layout& layout,
                                              PlacementError* error = nullptr);

/// The checks of place_layers without building the placement unless `out` is given (the
/// planner's rules run them for every candidate): true when legal, with the placement written to
/// `out` when not null; false with `error` filled (when not null) otherwise.
bool placement_is_legal(const ModelShape& model, const Layout& layout,
                        PlacementError* error = nullptr, PipelinePlacement* out = nullptr);

/// True when `layout` asks for a placement other than the even split: a string, a layer_split
/// or an account-for flag.
bool has_placement(const Layout& layout);

/// A placement in the form of the Layout fields that ask for it.
struct PlacementChoice {
  std::optional<LayerSplit> layer_split;
  bool account_for_embedding_in_pipeline_split = false;
  bool account_for_loss_in_pipeline_split = false;
  std::string pipeline_layout;   ///< empty unless the explicit form was needed
  int largest_chunk_layers = 0;  ///< its largest chunk's counted_layers
  /// Writes the choice's fields into `layout` (clearing the other placement fields).
  void apply_to(Layout& layout) const;
};

/// The most balanced placement Megatron-LM accepts for `model` on `pp` stages of `vpp` virtual
/// chunks: the one whose largest chunk counts the fewest layers (decoder layers, plus one each for
/// the embedding and the loss; MTP layers left out, as the catalog trains without them), the
/// simplest form that reaches it preferred: the even split, then
/// --account-for-embedding-in-pipeline-split, the loss flag, both flags, then
/// --decoder-first/last-pipeline-num-layers (the most balanced stages, then the first closest to
/// the last), then an explicit string (which always reaches ceil((layers + 2) / (PP x VPP)), its
/// lighter chunks spread over the stages, the last and first first). nullopt when pp or vpp is
/// below 1, vpp > 1 at pp 1, or the model has no layers.
std::optional<PlacementChoice> balanced_placement(const ModelShape& model, int pp, int vpp);

}  // namespace openrecipes
