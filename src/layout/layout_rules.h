// Which layouts are legal: the one set of rules that `validate`, `plan`, `recommend` and `export`
// all apply. Sources: Megatron-Core's parallel-state and argument checks, and Megatron-Bridge's
// recipe guide's resizing rules (TP divides the KV heads and stays within a node, SP when TP > 1,
// DP is implied).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/recipe.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"

namespace openrecipes {

/// One rule a layout must obey. Each has a stable id (layout_rule_id) used in problems and JSON.
/// The pipeline rules (placement_exclusive, pipeline_layout, pp, vpp) are those of
/// layout/pipeline_layout.h's place_layers.
enum class LayoutRule {
  kSizes,             ///< layout.sizes: every size at least 1
  kDenseMesh,         ///< mesh.world: TP x PP x CP divides the GPU count (DP = W / (TP x PP x CP))
  kTpHeads,           ///< mesh.tp_heads: TP divides the KV, linear-attention and Mamba-2 heads
  kTpNode,            ///< mesh.tp_node: TP and ETP divide the GPUs per node
  kSequenceParallel,  ///< mesh.sp: sequence parallelism whenever TP > 1
  kExperts,           ///< mesh.ep: EP divides the experts, ETP their FFN width; EP = ETP = 1
                      ///< for a dense model
  kExpertMesh,        ///< mesh.expert_dp: PP x EP x ETP divides the GPU count (expert DP integral)
  kPlacementExclusive,  ///< mesh.placement_exclusive: a pipeline_layout alone; layer_split not
                        ///< with the account-for flags
  kPipelineLayout,      ///< mesh.pipeline_layout: the string places every layer once on PP x VPP
                        ///< chunks, E first, L last
  kPipelineLayers,      ///< mesh.pp: the PP stages cover every layer (evenly, with the account-for
                        ///< flags, or by layer_split)
  kVirtualPipeline,     ///< mesh.vpp: VPP needs PP > 1 and divides every stage's layers
  kContextParallel,     ///< mesh.cp: the row splits into 2 x CP equal chunks
  kCpLayers,     ///< mesh.cp_layers: CP > 1 only with layers that have a CP implementation (Gated
                 ///< DeltaNet: CP divides each TP rank's linear-attention heads; Mamba-2: its
                 ///< heads, and its groups or a multiple of them)
  kGlobalBatch,  ///< mesh.batch: DP x rows per micro-batch divides the global batch
  kRowFits,      ///< mesh.max_tokens: max_tokens_per_gpu x CP >= row tokens
  kMicrobatchFits,  ///< mesh.microbatch: rows_per_microbatch x row tokens <= max_tokens_per_gpu x
                    ///< CP (the micro-batch's rows fit the GPUs' token budget)
  kRecompute,       ///< mesh.recompute: full recompute's num_layers fits in a stage's virtual chunk
  /// mesh.ep_a2a_overlap: the A2A/1F1B overlap (--overlap-moe-expert-parallel-comm) needs EP > 1,
  /// the alltoall or flex dispatcher, no full recompute and VPP > 1 when PP > 1 (Megatron-LM's
  /// validate_args)
  kEpA2aOverlap,
  /// mesh.flex_dispatcher: the flex dispatcher needs TP x EP > 1 (Megatron-Core's
  /// MoEFlexTokenDispatcher asserts it, megatron/core/transformer/moe/token_dispatcher.py)
  kFlexDispatcher,
  /// mesh.tp_comm_overlap: TP communication overlap (--tp-comm-overlap) needs TP > 1: Megatron-LM's
  /// validate_args turns sequence parallelism off at TP 1, then asserts it for the overlap
  /// (megatron/training/arguments.py)
  kTpCommOverlap,
  /// mesh.shared_expert_overlap: the shared-expert overlap (--moe-shared-expert-overlap) of a
  /// model with shared experts needs the alltoall dispatcher, and excludes the A2A/1F1B overlap
  /// (Megatron-Core's TransformerConfig.__post_init__, transformer_config.py)
  kSharedExpertOverlap,
};

/// Every rule, in the order they are checked.
const std::vector<LayoutRule>& all_layout_rules();
/// The rule's stable id, e.g. "mesh.tp_heads".
std::string layout_rule_id(LayoutRule rule);
/// The rule in one sentence.
std::string layout_rule_text(LayoutRule rule);

/// One broken rule, with the recipe field it is about (`layout.tp`), what the rule expected and
/// what the layout has.
struct LayoutViolation {
  LayoutRule rule;
  std::string field;
  std::string message;
  std::string expected;
  std::string found;
};

/// Every rule `layout` breaks for `model` on `cluster` under `workload`; empty when legal. DP is
/// implied (W / (TP x PP x CP)); `layout.dp` is not read.
std::vector<LayoutViolation> check_layout(const ModelShape& model, const ClusterShape& cluster,
                                          const PlanWorkload& workload, const Layout& layout);

/// The first rule `layout` breaks, or nullopt when legal. The same rules as check_layout without
/// building messages: the planner calls it for every candidate.
std::optional<LayoutRule> first_broken_rule(const ModelShape& model, const ClusterShape& cluster,
                                            const PlanWorkload& workload, const Layout& layout);

/// DP = W / (TP x PP x CP), or 0 when that does not divide.
int implied_data_parallel(const ClusterShape& cluster, const Layout& layout);
/// Expert DP = W / (PP x EP x ETP), or 0 when that does not divide.
int implied_expert_data_parallel(const ClusterShape& cluster, const Layout& layout);

}  // namespace openrecipes
