// What a plan is for besides the model: the GPUs (type, count, node size) and the workload
// (sequence length, global batch, precision). The protocol's values are the defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/gpu.h"
#include "catalog/protocol.h"

namespace openrecipes {

/// The GPUs a layout runs on.
struct ClusterShape {
  Gpu gpu;           ///< the GPU type (gpus.yaml): memory, peak FLOP/s, bandwidths, rate
  int gpus = 0;      ///< GPUs in all (the world size W)
  int per_node = 0;  ///< GPUs per node; TP stays within one node

  /// Every field equal (C++20 defaulted comparison): the same inputs to the planner.
  bool operator==(const ClusterShape&) const = default;
};

/// Arithmetic precision of the decoder's linear layers: BF16, FP8 with per-tensor or blockwise
/// scaling (Transformer Engine's delayed, current or 128x128 blockwise recipes), MXFP8 (OCP
/// microscaling, 32-element blocks; Blackwell) or NVFP4 (Blackwell).
enum class Precision { kBf16, kFp8, kMxfp8, kNvfp4 };

/// The training workload. Defaults are the protocol's (the submission guide): 8,192-token rows,
/// global batch 128 rows, BF16.
struct PlanWorkload {
  std::int64_t row_tokens = kRowTokens;          ///< tokens per row (the sequence length)
  std::int64_t global_batch = kGlobalBatchRows;  ///< rows per optimizer step
  Precision precision = Precision::kBf16;
  /// MoE tokens force-balanced over the experts, as Megatron-Bridge's published benchmarks run
  /// (docs/performance-summary.md's note); false: natural routing, as the catalog's recipes run.
  bool forced_balanced_routing = false;
  /// TP communication overlapped with GEMMs (Megatron-LM --tp-comm-overlap, Transformer Engine's
  /// userbuffers).
  bool tp_comm_overlap = false;
  /// The shared expert computed while the routed tokens' all-to-all is in flight
  /// (Megatron-Core --moe-shared-expert-overlap; off by default, as in Megatron-LM's arguments).
  bool shared_expert_overlap = false;
  /// EP's all-to-all of one micro-batch overlapped with another micro-batch's compute (Megatron-LM
  /// --overlap-moe-expert-parallel-comm, the combined 1F1B schedule; off by default). Legal only
  /// with EP > 1, the alltoall or flex dispatcher, no full recompute and VPP when PP > 1
  /// (LayoutRule::kEpA2aOverlap).
  bool ep_a2a_overlap = false;
  /// The flex dispatcher's backend (Megatron-LM --moe-flex-dispatcher-backend): false for DeepEP,
  /// the default; true for HybridEP, NVIDIA's EP kernels for NVLink domains (NVL72 racks too).
  bool hybridep = false;
  /// The routed experts' first grouped GEMM, their activation (SwiGLU) and its quantization run
  /// as one fused kernel on Blackwell (Megatron-Bridge's cutedsl_fused_grouped_mlp: Transformer
  /// Engine's fused grouped MLP over cuDNN's grouped_gemm_swiglu kernels).
  bool fused_expert_mlp = false;
  /// Gradients accumulated and reduce-scattered in FP32 (Megatron-Core DDP's grad_reduce_in_fp32:
  /// the gradient buffer's dtype). Megatron-LM turns it on for --bf16 unless --grad-reduce-in-bf16
  /// (validate_args, megatron/training/arguments.py), as do Megatron-Bridge's mixed-precision
  /// presets; false: BF16, 2 bytes per parameter held and reduced instead of 4.
  bool grad_reduce_in_fp32 = true;

  /// Every field equal (C++20 defaulted comparison): the same inputs to the planner.
  bool operator==(const PlanWorkload&) const = default;
};

/// Bytes per parameter of the gradient buffer, held and reduce-scattered: 4 with
/// `workload.grad_reduce_in_fp32`, else 2 (the buffer takes the BF16 parameters' dtype:
/// `grad_dtype = torch.float if grad_reduce_in_fp32 else param.dtype`, Megatron-Core's
/// megatron/core/distributed/distributed_data_parallel.py).
double gradient_bytes_per_param(const PlanWorkload& workload);

/// "bf16", "fp8", "mxfp8" or "nvfp4".
std::string precision_name(Precision precision);

/// The precision `name` (as precision_name writes it, or as a recipe's workload.precision states
/// it) names; nullopt for any other text.
std::optional<Precision> precision_from_name(std::string_view name);

}  // namespace openrecipes
