// The planner's search: every candidate layout for a model on N GPUs, each checked by the layout
// rules, the legal ones by the memory model, the fitting ones ranked by the speed model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layout/layout_rules.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"
#include "plan/layout_prediction.h"

namespace openrecipes {

/// Settings of a search.
struct SearchOptions {
  int top = 10;           ///< ranked layouts to keep (best first)
  SpeedParameters speed;  ///< calibrated speed-model parameters
  MemoryOptions memory;   ///< headroom
  int max_rows_per_microbatch = 8;
  int max_virtual_stages = 8;
  /// Token dispatchers tried for a MoE layout (Megatron-LM --moe-token-dispatcher-type: alltoall,
  /// flex or allgather), the first for every mesh, the others as variants of each fitting layout
  /// with EP > 1 (with EP = 1 no tokens cross GPUs and the dispatcher changes no prediction).
  /// Default alltoall, which Megatron-LM's --moe-token-dispatcher-type help recommends once EP >
  /// 1 (megatron/training/arguments.py; slime makes it the default), and flex (DeepEP, or HybridEP
  /// with PlanWorkload::hybridep), which Megatron-Bridge's multi-node MoE benchmarks run.
  /// Allgather, Megatron-LM's default, is tried only when named.
  std::vector<std::string> dispatchers = {"alltoall", "flex"};
  /// Check every mesh against the layout rules one by one. By default a block of meshes that one
  /// rule decides without reading EP, ETP or the micro-batch is counted at once (the same counts
  /// and examples, checked by the tests; seconds faster at GPU counts with many divisors).
  bool check_every_mesh = false;
  /// Predict the speed of every fitting layout. By default a recompute setting is not predicted
  /// when its mesh without recompute (with any of `dispatchers`) is no faster than the slowest
  /// layout kept: recompute only adds time in the speed model (speed_model.h), so it could not be
  /// kept either. The same ranking, checked by the tests; counted in LayoutSearchResult::predicted.
  bool predict_every_layout = false;
};

/// Layouts one rule rejected, with one example and its explanation.
struct RuleRejections {
  LayoutRule rule;
  std::int64_t count = 0;
  Layout example;
  LayoutViolation example_violation;
};

/// What the search found.
struct LayoutSearchResult {
  std::vector<LayoutPrediction>
      ranked;  ///< fitting layouts, best predicted tokens/s per GPU first; at most `top`
  /// Layouts generated: a mesh a rule rejects counts once; a legal mesh once per recompute setting.
  std::int64_t candidates = 0;
  std::int64_t legal = 0;    ///< of those, legal by every layout rule
  std::int64_t fitting = 0;  ///< of those, predicted to fit in memory
  /// Of those, the ones whose speed was predicted (SearchOptions::predict_every_layout says which
  /// are skipped); fitting when every one was.
  std::int64_t predicted = 0;
  std::vector<RuleRejections>
      rejected;  ///< per rule, in rule order; rules that rejected nothing left out
  std::int64_t rejected_by_memory = 0;  ///< legal layouts predicted not to fit
  std::optional<LayoutPrediction>
      memory_example;  ///< the legal layout closest to fitting (least memory) that does not
};

/// Searches TP (divisors of the GPU count up to twice a node), PP (up to the layer count, with
/// uneven first/last splits when the layers do not divide), VPP (and for each PP x VPP the layers
/// do not divide, with at least one layer a chunk, its balanced_placement), CP, EP (up to the
/// expert count), ETP, rows per micro-batch (up to max_rows_per_microbatch), recompute (none,
/// selective, full uniform with 1, 2 or 4 layers per unit, and full block with the fewest layers
/// that fit) and, for a MoE layout with EP > 1, the dispatchers of options.dispatchers. Every
/// recompute and dispatcher variant is checked by the layout rules (full recompute can break
/// mesh.ep_a2a_overlap, a dispatcher mesh.flex_dispatcher) and counted; of a layout's
/// dispatchers only the fastest is ranked (the first on a tie), the others being the same layout
/// predicted slower. Deterministic; ties keep generation order.
LayoutSearchResult search_layouts(const ModelShape& model, const ClusterShape& cluster,
                                  const PlanWorkload& workload, const SearchOptions& options);

/// True when `a` and `b` are the same layout: parallel sizes, placement (layer split, account-for
/// flags, pipeline_layout), rows per micro-batch, recompute and dispatcher (labels, summaries and
/// max_tokens_per_gpu aside).
bool same_layout(const Layout& a, const Layout& b);

}  // namespace openrecipes
