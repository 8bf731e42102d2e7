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

/// The model's free parameters. Defaults are priors used before calibration and for any parameter
/// the calibration set cannot identify.
struct SpeedParameters {
  double matmul_efficiency = 0.55;  ///< achieved / peak FLOP/s of the GEMMs
  double attention_efficiency =
      0.40;  ///< achieved / peak FLOP/s of attention and Gated DeltaNet kernels
  double communication_efficiency = 0.7;  ///< achieved / link bandwidth of collectives
  double layer_overhead_s = 0;  ///< fixed time per layer per micro-batch pass (launches, routing)
  double recompute_unit_overhead_s = 0;  ///< fixed time per recompute unit per micro-batch
  double flex_dispatcher_factor =
      1;  ///< all-to-all time of the flex (DeepEP) dispatcher / alltoall's
};

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
      0;                   ///< Gated DeltaNet's chunked recurrence, per token, all layers
  double output_flop = 0;  ///< the output layer (logits), per token
  double total() const {
    return layer_matmul_flop + attention_core_flop + linear_attention_core_flop + output_flop;
  }
};

/// Forward FLOPs per token of `model` on rows of `row_tokens` tokens (causal, so a token attends on
/// average to row_tokens / 2 earlier tokens; a sliding-window layer to min(window, row_tokens /
/// 2)).
ForwardFlops forward_flops_per_token(const ModelShape& model, std::int64_t row_tokens);

/// Predicts the step time of a legal `layout`. Inputs beyond the protocol (sequence length, global
/// batch, FP8) are honoured so the model can be checked against published measurements.
///
/// step time = m x t_mb + (PP - 1) / VPP x t_mb + exposed DP communication, where m is the
/// micro-batches per DP rank and t_mb the time of one micro-batch (forward, backward and
/// recompute) on the most loaded pipeline stage: compute, TP, exposed CP and EP communication,
/// PP point-to-point and the fixed per-layer and per-recompute-unit overheads. The terms of
/// SpeedEstimate::terms add up to step_time_s. Formulas and sources: speed_model.cc.
SpeedEstimate estimate_speed(const ModelShape& model, const ClusterShape& cluster,
                             const PlanWorkload& workload, const Layout& layout,
                             const SpeedParameters& parameters);

}  // namespace openrecipes
