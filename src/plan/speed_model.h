// Step time of a layout: FLOPs over achievable FLOP/s, communication over NVLink and the network,
// the pipeline bubble, and the overlap the layout enables. A few free parameters are calibrated on
// the catalog's measured recipes (speed_calibration.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/recipe.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"

namespace openrecipes {

/// The model's free parameters: few, physical and bounded (speed_parameter_bounds). Defaults are
/// the priors the fit starts from and is pulled towards (docs/planner.md, "Calibration").
struct SpeedParameters {
  double gemm_efficiency = 0.75;  ///< achieved / peak FLOP/s of a large BF16 GEMM
  /// achieved / peak FLOP/s of a large FP8, MXFP8 or NVFP4 GEMM (at that precision's peak)
  double low_precision_gemm_efficiency = 0.6;
  /// achieved / dense FLOP/s of the routed experts' grouped GEMM at the same shape
  double grouped_gemm_efficiency = 0.8;
  double attention_efficiency = 0.5;      ///< achieved / peak of attention kernels' matmuls
  double hbm_efficiency = 0.8;            ///< achieved / peak HBM bandwidth of elementwise kernels
  double communication_efficiency = 0.7;  ///< achieved / link bandwidth of collectives
  double collective_latency_s = 15e-6;    ///< fixed cost of one collective call, seconds
  double kernel_overhead_s = 4e-6;        ///< fixed cost per kernel (launch and gaps), seconds
  /// Tokens the busiest EP rank's experts receive / the mean, under natural routing (the
  /// catalog's recipes train without a load-balancing loss); forced-balanced runs use 1.
  double routing_imbalance = 1.3;
  /// fixed seconds per full-recompute unit per micro-batch (checkpoint bookkeeping, the
  /// recompute's launch and synchronisation)
  double recompute_unit_overhead_s = 1e-4;
  /// whole all-to-all time of the flex dispatcher's HybridEP backend
  /// (--moe-flex-dispatcher-backend hybridep, NVLink domains through TMA) / alltoall's
  double hybridep_dispatcher_factor = 1.0;
  /// Each Blackwell type's sustained tensor-core and special-function throughput / its datasheet
  /// peak, relative to Hopper's (H100 and H200 are the reference: the efficiencies above are
  /// theirs). Under the power cap a GPU's clocks settle below the boost clock its datasheet peak
  /// assumes, by how much depends on the board's power (B200 1,000 W, B300 1,100 W, GB200
  /// 1,200 W, GB300 1,400 W), which the datasheets do not translate into clocks. A GPU type not
  /// named here runs at 1.
  double sustained_clock_b200 = 1.0;
  double sustained_clock_b300 = 1.0;
  double sustained_clock_gb200 = 1.0;
  double sustained_clock_gb300 = 1.0;
};

/// `p`'s sustained-clock factor for the GPU type `gpu_type` (gpus.yaml's `type`): the fitted one
/// for B200, B300, GB200 and GB300, 1 for any other type.
double sustained_clock(const SpeedParameters& p, const std::string& gpu_type);

/// One free parameter: its name (as the calibration report prints it), field and bounds.
struct SpeedParameterBound {
  const char* name;
  double SpeedParameters::*field;
  double low, high;
  bool logarithmic;  ///< fitted in log space (efficiencies, factors, times)
  const char* meaning;
};

/// Every free parameter with its bounds, in report order.
const std::vector<SpeedParameterBound>& speed_parameter_bounds();

/// One term of the step time, for `plan --layout` to explain.
struct StepTimeTerm {
  std::string name;    ///< e.g. "compute", "TP communication", "pipeline bubble"
  double seconds = 0;  ///< per step, exposed (after overlap)
  std::string detail;  ///< how it was computed, in words and numbers
};

/// The prediction for one layout.
struct SpeedEstimate {
  double step_time_s = 0;
  double tokens_per_s_per_gpu = 0;  ///< global batch x row tokens / (step time x W)
  double mfu = 0;                   ///< 6 N tokens/s/GPU / peak (figures/figures.h), fraction
  double usd_per_million_tokens = 0;
  double flop_per_step_per_gpu = 0;  ///< forward + backward + recompute, FLOP
  std::vector<StepTimeTerm> terms;
};

/// FLOPs of one token's forward pass through the whole model, split by the rate they run at.
/// Sources in speed_model.cc: 2 FLOP per weight touched (Kaplan et al. 2020); softmax attention's
/// sequence-squared term as in Megatron-LM's num_floating_point_operations (Narayanan et al. 2021);
/// Gated DeltaNet's chunked delta rule (Yang et al. 2024, arXiv:2412.06464).
struct ForwardFlops {
  double layer_matmul_flop = 0;    ///< linear layers of all decoder layers, per token
  double attention_core_flop = 0;  ///< softmax attention's QK^T and AV, per token, all layers
  double linear_attention_core_flop =
      0;                         ///< Gated DeltaNet's chunked recurrence, per token, all layers
  double output_flop = 0;        ///< the output layer (logits), per token
  double mamba_core_flop = 0;    ///< Mamba-2's SSD chunked scan, per token, all layers
  double indexer_core_flop = 0;  ///< the sparse-attention indexer's scoring, per token, all layers
  double total() const {
    return layer_matmul_flop + attention_core_flop + linear_attention_core_flop + output_flop +
           mamba_core_flop + indexer_core_flop;
  }
};

/// Forward FLOPs per token of `model` on rows of `row_tokens` tokens (causal, so a token attends on
/// average to row_tokens / 2 earlier tokens; a sliding-window layer to min(window, row_tokens /
/// 2); a layer with DeepSeek sparse attention to its top-k, full_attention_keys in
/// plan/layer_parts.h). Mamba-2's scan: mamba_scan_flop_per_token (plan/layer_compute.h) on all
/// heads and groups; the indexer: 2 x indexer heads x indexer head_dim per causal pair.
ForwardFlops forward_flops_per_token(const ModelShape& model, std::int64_t row_tokens);

/// The predicted tokens/s per GPU of a legal `layout`, as estimate_speed computes it, without the
/// explained terms (the calibration calls it for every row and parameter step).
double predict_tokens_per_s_per_gpu(const ModelShape& model, const ClusterShape& cluster,
                                    const PlanWorkload& workload, const Layout& layout,
                                    const SpeedParameters& parameters);

/// `layout`'s token dispatcher as the planner names it: "flex (DeepEP)" or "flex (HybridEP)" by
/// `workload.hybridep` (Megatron-LM --moe-flex-dispatcher-backend), else the dispatcher as set
/// ("alltoall", "allgather", or empty for a dense model).
std::string dispatcher_name(const Layout& layout, const PlanWorkload& workload);

/// predict_tokens_per_s_per_gpu of `layout` with each of `dispatchers` (alltoall, flex, allgather)
/// as its dispatcher, in that order: tokens/s per GPU, one per dispatcher. The work no dispatcher
/// changes (the micro-batch's compute, unless HybridEP moves the permutation into the dispatch) is
/// done once: the search prices each EP layout's dispatchers together.
std::vector<double> predict_per_dispatcher(const ModelShape& model, const ClusterShape& cluster,
                                           const PlanWorkload& workload, const Layout& layout,
                                           const std::vector<std::string>& dispatchers,
                                           const SpeedParameters& parameters);

/// Predicts the step time of a legal `layout`. Inputs beyond the protocol (sequence length, global
/// batch, FP8) are honoured so the model can be checked against published measurements.
///
/// step time = m x t_mb + (PP - 1) / VPP x t_mb + exposed DP communication, where m is the
/// micro-batches per DP rank and t_mb the time of one micro-batch (forward, backward and
/// recompute) on the most loaded pipeline stage: compute, TP, exposed CP and EP communication,
/// PP point-to-point and the fixed per-layer and per-recompute-unit overheads. The terms of
/// SpeedEstimate::terms add up to step_time_s. Formulas and sources: speed_model.cc.
/// `explain` false leaves SpeedEstimate::terms empty (the search predicts every candidate and
/// explains none).
SpeedEstimate estimate_speed(const ModelShape& model, const ClusterShape& cluster,
                             const PlanWorkload& workload, const Layout& layout,
                             const SpeedParameters& parameters, bool explain = true);

}  // namespace openrecipes
