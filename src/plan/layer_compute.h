// One micro-batch's compute on one GPU of a pipeline stage, by kind of work: the decoder's linear
// layers as the GEMM shapes the layout gives each GPU, attention, Gated DeltaNet, Mamba-2 and
// sparse-attention indexer kernels, memory-bound elementwise work, and the fixed cost of each
// kernel.
#pragma once

#include <cstdint>

#include "catalog/recipe.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"
#include "plan/gemm_time.h"

namespace openrecipes {

/// Gated DeltaNet chunk length, tokens: the chunked kernels of flash-linear-attention
/// (chunk_gated_delta_rule) use 64-token chunks (Yang et al. 2024, arXiv:2412.06464, sec. 3).
inline constexpr double kDeltaNetChunkTokens = 64;
/// Mamba-2 SSD chunk length, tokens: Megatron-Core's MambaMixer default chunk_size
/// (megatron/core/ssm/mamba_mixer.py), the chunk of Dao and Gu 2024 (arXiv:2405.21060), sec. 6.
inline constexpr double kMambaChunkTokens = 128;

/// Forward FLOPs per token and layer of Mamba-2's SSD chunked scan on `heads` heads and `groups`
/// B/C groups (per GPU), chunk Q = min(kMambaChunkTokens, row_tokens), following the four steps of
/// Dao and Gu 2024 (arXiv:2405.21060), sec. 6 (our count, an assumption; whole Q x Q tiles, as the
/// mamba_ssm Triton kernels compute them):
///   intra-chunk scores C B^T:            2 Q N per group
///   scores times X (diagonal blocks):    2 Q P per head
///   chunk states B^T X:                  2 N P per head
///   state passing between chunks:        2 N P / Q per head
///   outputs from the states C h:         2 N P per head
/// with N = d_state and P = head_dim.
double mamba_scan_flop_per_token(const ModelShape& model, double heads, double groups,
                                 double row_tokens);

/// HBM bytes per token and layer that Mamba-2's SSD chunked scan moves forward on `heads` heads
/// and `groups` B/C groups (per GPU), chunk Q = min(kMambaChunkTokens, row_tokens), as mamba_ssm's
/// Triton path runs it (_mamba_chunk_scan_combined_fwd, mamba_ssm/ops/triton/ssd_combined.py,
/// github.com/state-spaces/mamba): the chunk states, H x P x N per chunk, written in FP32 by
/// _chunk_state_fwd, read and written back in BF16 by _state_passing_fwd, read by
/// _chunk_scan_fwd (4 + 4 + 2 + 2 = 12 bytes per element / Q per token); C B^T, G x Q x Q per
/// chunk in FP32, written by _bmm_chunk_fwd and read by _chunk_scan_fwd (8 G Q per token); x read
/// twice and y written (6 H P), B and C read twice each (8 G N).
double mamba_scan_bytes_per_token(const ModelShape& model, double heads, double groups,
                                  double row_tokens);

/// The rates one GPU gives the compute of a micro-batch, as the speed model's parameters set them.
struct ComputeRates {
  GemmDevice bf16;                  ///< BF16 GEMMs (output layer, router, BF16 runs)
  GemmDevice linear;                ///< the decoder's linear layers at the run's precision
  double linear_input_bytes = 2;    ///< bytes per element of a linear layer's inputs (1 for FP8)
  bool low_precision = false;       ///< FP8, MXFP8 or NVFP4: inputs are cast before each GEMM
  double attention_flop_per_s = 0;  ///< achieved FLOP/s of attention's matmuls
  /// Exponentials per second of softmax attention: the bf16 peak / 256, the ratio of H100's
  /// 989 TFLOP/s of matmul to 3.9 TFLOP/s of special functions (Shah et al. 2024,
  /// FlashAttention-3, arXiv:2407.08608, sec. 1), assumed for every GPU type.
  double exp_per_s = 0;
  double hbm_bytes_per_s = 0;    ///< achieved HBM bandwidth
  double kernel_overhead_s = 0;  ///< fixed cost per kernel (launch, gaps), seconds
  /// Achieved FLOP/s of the routed experts' grouped GEMM / a dense GEMM's of the same shape
  /// (fitted: SpeedParameters::grouped_gemm_efficiency), in (0, 1].
  double grouped_gemm_efficiency = 1;
};

/// What a stage holds and how the micro-batch is split on it.
struct StageWork {
  double layer_share = 1;   ///< the stage's decoder layers / the model's layers
  bool has_output = false;  ///< the output layer and loss are on this stage
  double rows = 1;          ///< rows per micro-batch
  double row_tokens = 0;    ///< tokens per row
  int tp = 1, cp = 1, ep = 1, etp = 1;
  /// Tokens the most loaded GPU's experts receive over the mean (1: balanced routing).
  double routing_imbalance = 1;
  /// The routed experts' first GEMM, activation and quantization run as one kernel (see
  /// PlanWorkload::fused_expert_mlp): no activation bytes, no cast of the second GEMM's input.
  bool fused_expert_mlp = false;
  /// The dispatcher permutes the routed copies into expert order as it sends them and unpermutes
  /// them as it combines (HybridEP's dispatch_with_permute / combine_with_unpermute,
  /// github.com/deepseek-ai/DeepEP branch hybrid-ep, as Megatron-Core's fused_a2a.py calls them):
  /// no separate permute and unpermute kernels or their bytes.
  bool permute_in_dispatch = false;
  /// The layout's recompute when selective: its modules' forward runs again in backward
  /// (ComputeTime::selective_recompute_fwd_s); anything else recomputes no module.
  Recompute recompute = {};
};

/// Seconds of one micro-batch's compute on one GPU, forward (one pass) and backward, by kind.
struct ComputeTime {
  double dense_gemm_fwd_s = 0;   ///< attention / GDN projections, dense MLP, shared expert, router
  double expert_gemm_fwd_s = 0;  ///< routed experts' grouped GEMMs
  double output_fwd_s = 0;       ///< the output layer (logits), on the last stage
  double dense_gemm_bwd_s = 0, expert_gemm_bwd_s = 0, output_bwd_s = 0;  ///< dgrad + wgrad
  double attention_fwd_s = 0, attention_bwd_s = 0;  ///< softmax attention kernels
  double gdn_fwd_s = 0, gdn_bwd_s = 0;              ///< Gated DeltaNet's chunked kernels
  double ssm_fwd_s = 0, ssm_bwd_s = 0;  ///< Mamba-2's SSD chunked scan (with its exponentials)
  double indexer_fwd_s = 0, indexer_bwd_s = 0;  ///< the sparse-attention indexer's scoring
  double memory_bound_fwd_s = 0, memory_bound_bwd_s = 0;  ///< norms, activations, casts, ...
  double kernels_fwd = 0;          ///< kernel launches of one forward pass of the stage
  double shared_expert_fwd_s = 0;  ///< of dense_gemm_fwd_s: the shared experts (EP overlap)
  double tokens_per_expert = 0;    ///< rows the most loaded local expert's GEMMs have (M)
  /// Seconds the selective recompute's modules add, one more forward of each (StageWork::recompute;
  /// layer_compute.cc says what each module reruns). Not part of forward_s or backward_s.
  double selective_recompute_fwd_s = 0;
  /// Forward seconds (one pass) with the fixed kernel costs.
  double forward_s(const ComputeRates& r) const {
    return dense_gemm_fwd_s + expert_gemm_fwd_s + output_fwd_s + attention_fwd_s + gdn_fwd_s +
           ssm_fwd_s + indexer_fwd_s + memory_bound_fwd_s + kernels_fwd * r.kernel_overhead_s;
  }
  /// Backward seconds with the fixed kernel costs (twice the forward's kernels).
  double backward_s(const ComputeRates& r) const {
    return dense_gemm_bwd_s + expert_gemm_bwd_s + output_bwd_s + attention_bwd_s + gdn_bwd_s +
           ssm_bwd_s + indexer_bwd_s + memory_bound_bwd_s + 2 * kernels_fwd * r.kernel_overhead_s;
  }
};

/// The compute of one micro-batch of `work` on `model`. Linear layers run as GEMMs of M = the
/// micro-batch's tokens on the GPU (rows x row tokens / CP: sequence parallelism gathers the TP
/// group's tokens before each column-parallel GEMM), N or K divided by TP; routed experts as one
/// grouped GEMM over the EP rank's E / EP experts of M = its routed tokens (rows x row tokens x
/// top-k / (CP x TP) x ETP, times the imbalance) / (E / EP) each; backward runs each GEMM's dgrad
/// (M x K from M x N) and wgrad (K x N over M). Softmax attention: 4 x head_dim FLOP and one
/// exponential per query-key pair forward; backward 2.5 times the matmuls (five of them against
/// two; FlashAttention-2, Dao 2023, arXiv:2307.08691, sec. 3.1) and the exponentials again. A full
/// layer attends to full_attention_keys (s / 2, or DeepSeek sparse attention's top-k). The
/// sparse-attention indexer (duplicated on every TP rank, Megatron-Core DSAIndexer,
/// megatron/core/transformer/experimental_attention_variant/dsa.py): its projections as one GEMM
/// of M = the micro-batch's tokens on the GPU, N = indexer_params / h, not split by TP; its scoring
/// 2 x indexer heads x indexer head_dim FLOP per causal pair at attention's rate, backward twice
/// that. Mamba-2: in_proj (column-parallel, N = mamba_in_proj_outputs / TP) and out_proj
/// (row-parallel, K = d_inner / TP) GEMMs; the SSD scan (mamba_scan_flop_per_token on the GPU's
/// heads / TP and groups / TP) at attention's rate plus one exponential per head and token pair
/// of its chunk (the decay exp(segsum), mamba_ssm ssd_chunk_scan) at the special-function rate;
/// backward twice the forward; its HBM traffic (mamba_scan_bytes_per_token) with the memory-bound
/// work. Memory-bound work in bytes per token (docs/planner.md).
ComputeTime micro_batch_compute(const ModelShape& model, const StageWork& work,
                                const ComputeRates& rates);

}  // namespace openrecipes
