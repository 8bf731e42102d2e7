// Memory per GPU of a layout, for the most loaded pipeline stage: weights, gradients and
// optimizer state, and the activations the pipeline schedule keeps in flight.
#pragma once

#include <string>
#include <vector>

#include "catalog/recipe.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"

namespace openrecipes {

/// Settings of the memory model.
struct MemoryOptions {
  /// Fraction of the GPU's memory kept free for what the model leaves out (NCCL buffers, CUDA
  /// graphs, the caching allocator's fragmentation, the CUDA context).
  double headroom_fraction = 0.10;
};

/// One pipeline stage's memory per GPU, bytes.
struct StageMemory {
  int stage = 0;   ///< PP rank
  int layers = 0;  ///< decoder layers on it
  double in_flight_microbatches = 0;
  double weights_bytes = 0;      ///< BF16 weights (dense / TP, experts / (EP x ETP))
  double gradients_bytes = 0;    ///< FP32 main gradients
  double optimizer_bytes = 0;    ///< FP32 master weights + Adam moments, sharded over (expert) DP
  double activations_bytes = 0;  ///< stored activations of the in-flight micro-batches
  double logits_bytes = 0;       ///< output layer logits and loss buffers (last stage)
  double total_bytes = 0;
};

/// The estimate for a layout.
struct MemoryEstimate {
  StageMemory peak;                 ///< the most loaded stage
  std::vector<StageMemory> stages;  ///< every stage, PP rank order
  double memory_bytes = 0;          ///< peak.total_bytes
  double capacity_bytes = 0;        ///< the GPU's memory (memory_gb x 1e9)
  double usable_bytes = 0;          ///< capacity x (1 - headroom)
  bool fits = false;                ///< memory_bytes <= usable_bytes
};

/// What estimate_memory does not count (buffers, fragmentation, routing imbalance...), one phrase
/// each, for the reports. The same for every layout.
const std::vector<std::string>& memory_left_out();

/// Estimates memory per GPU for a legal `layout` (check_layout passes). Weights, gradients and
/// optimizer: Megatron-LM theoretical_memory_usage.py (BF16 weights, FP32 gradients, FP32 master
/// weights and two Adam moments sharded by the distributed optimizer over DP x CP for dense
/// weights and over expert DP for experts). Activations: Korthikanti et al. 2022 (arXiv:2205.05198)
/// with flash attention (no s^2 term), SP and CP dividing the sequence, and the MoE terms those
/// formulas miss (the top-k routed copies of each token and the expert MLP activations, sharded by
/// ETP), times the stage's in-flight micro-batches; full recompute keeps only the inputs of the
/// recomputed layers plus one recompute unit's activations; selective recompute drops what its
/// modules (Recompute::modules, Megatron-Core's recompute_modules) would otherwise keep.
MemoryEstimate estimate_memory(const ModelShape& model, const ClusterShape& cluster,
                               const PlanWorkload& workload, const Layout& layout,
                               const MemoryOptions& options = {});

/// The memory a layout may fill on one GPU of `cluster`, bytes: its memory_gb x 1e9 less the
/// headroom (`options.headroom_fraction`); estimate_memory's usable_bytes.
double usable_bytes_per_gpu(const ClusterShape& cluster, const MemoryOptions& options = {});

/// A floor under estimate_memory's memory_bytes for every layout without offloading on `cluster`,
/// bytes per GPU: the decoder layers' weights (2 B), gradients (gradient_bytes_per_param) and
/// distributed-optimizer state (12 B) per parameter, which the W GPUs hold at least once between
/// them, over W. The most loaded GPU holds at least the average; embeddings, the output layer,
/// activations and logits only add to it. When the floor exceeds the usable memory no layout
/// fits, and a search at this GPU count can be skipped.
double state_bytes_floor_per_gpu(const ModelShape& model, const ClusterShape& cluster,
                                 const PlanWorkload& workload);

}  // namespace openrecipes
