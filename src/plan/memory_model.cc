#include "plan/memory_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <string_view>

#include "layout/layout_rules.h"
#include "layout/pipeline_stages.h"
#include "plan/dtype_bytes.h"
#include "plan/layer_parts.h"

namespace openrecipes {
namespace {

/// FP32 master weight + Adam m + Adam v, per parameter (Megatron-LM theoretical_memory_usage.py:
/// "18 bytes per parameter" = 2 weight + 4 gradient + 12 optimizer, the 12 sharded by the
/// distributed optimizer).
constexpr double kOptimizerBytesPerParam = 3 * kFp32Bytes;

/// Activation bytes per token, split by how the mesh shards them.
struct ByteSplit {
  double sequence =
      0;              ///< per token; divided by TP only with SP (norm inputs, block inputs, router)
  double tensor = 0;  ///< per token; divided by TP (head- or ffn-sharded)
  double replicated = 0;  ///< per token; on every TP rank whole (the duplicated indexer's tensors)
  double per_copy = 0;    ///< per routed token copy on an expert rank (widths already / ETP)

  ByteSplit& operator+=(const ByteSplit& o) {
    sequence += o.sequence;
    tensor += o.tensor;
    replicated += o.replicated;
    per_copy += o.per_copy;
    return *this;
  }
  ByteSplit scaled(double f) const {
    return {sequence * f, tensor * f, replicated * f, per_copy * f};
  }
};

constexpr std::size_t kModuleCount = std::size(kRecomputeModules);

/// The index of `module` in kRecomputeModules.
constexpr std::size_t module_index(std::string_view module) {
  for (std::size_t i = 0; i < kModuleCount; ++i)
    if (kRecomputeModules[i] == module) return i;
  return kModuleCount;
}

/// Stored activation bytes per token of one layer kind, and what each selective-recompute module
/// drops of them (Megatron-Core frees a checkpointed module's outputs after their consumer saved
/// them and recomputes them in backward: CheckpointWithoutOutput, megatron/core/tensor_parallel/
/// random.py). Sources: Korthikanti et al. 2022 (arXiv:2205.05198), sec. 4.1, eq. 1-2: per layer
/// s*b*h*(34 + 5*a*s/h) bytes, of which 10*s*b*h (LayerNorm inputs, the inputs of the first
/// linear of each block, dropout masks) stay replicated across TP without sequence parallelism.
/// Here: flash attention (no 5*a*s^2*b softmax term), dropout 0 (no masks), GQA, SwiGLU, explicit
/// head widths; plus the MoE terms Korthikanti does not have (see moe_block).
struct TokenBytes {
  ByteSplit stored;
  std::array<ByteSplit, kModuleCount> dropped = {};  ///< indexed as kRecomputeModules

  /// What `Module` (a kRecomputeModules name) drops; the name is looked up at compile time (the
  /// search builds these for every layout it checks).
  template <std::size_t Module>
  ByteSplit& drops() {
    static_assert(Module < kModuleCount, "not a kRecomputeModules name");
    return dropped[Module];
  }
  /// Adds `o` x `f`.
  void add_scaled(const TokenBytes& o, double f) {
    stored += o.stored.scaled(f);
    for (std::size_t i = 0; i < kModuleCount; ++i) dropped[i] += o.dropped[i].scaled(f);
  }
};

constexpr std::size_t kCoreAttn = module_index("core_attn"), kLayernorm = module_index("layernorm"),
                      kMlaUpProj = module_index("mla_up_proj"), kMlp = module_index("mlp"),
                      kMoeAct = module_index("moe_act"),
                      kSharedExperts = module_index("shared_experts"), kMoe = module_index("moe");

/// DeepSeek sparse attention's lightning indexer, per token, on every TP rank whole (its
/// projections are duplicated and run on the sequence-parallel-gathered tokens; Megatron-Core
/// DSAIndexer.forward_before_topk,
/// megatron/core/transformer/experimental_attention_variant/dsa.py): the gathered hidden state (the
/// input of its key and weight projections) 2h, its queries 2 x heads_I x d_I, its key 2 d_I, its
/// per-head weights FP32 4 heads_I, and the top-k indices the main attention reads, int32 4k (the
/// sparse-MLA kernels' index type). The query projection's low-rank input (q_lora_rank) is left
/// out.
double indexer_bytes(const ModelShape& m) {
  const double hi = m.indexer_heads, di = m.indexer_head_dim;
  return kBf16Bytes * m.hidden_size + kBf16Bytes * hi * di + kBf16Bytes * di + kFp32Bytes * hi +
         kFp32Bytes * m.indexer_top_k;
}

/// Softmax attention block. Korthikanti's attention block is 11*s*b*h (+5*a*s^2*b): QKV input
/// 2h, Q and K 4h, V 2h, output-projection input 2h, dropout mask h. With flash attention and GQA:
///   sequence: norm input 2h + QKV input (the norm's output) 2h
///   tensor:   Q, K, V kept by flash attention 2*(a*d + g*d + g*dv) (dv = d, or MLA's value
///             width) + its output (the output projection's input) 2*a*dv + softmax log-sum-exp
///             FP32 4*a.
/// For MHA with d = h/a this is 4h + 8h + 4a against Korthikanti's 2h (norm) + 11h. Recompute
/// modules: core_attn drops the log-sum-exp (the checkpoint keeps Q, K, V as its inputs and the
/// output projection keeps the output); layernorm the norm's output; mla_up_proj the
/// up-projections' Q, K and V (Megatron-Core MLASelfAttention, recompute_up_proj,
/// megatron/core/transformer/multi_latent_attention.py).
TokenBytes attention_block(const ModelShape& m) {
  const double h = m.hidden_size, a = m.attention_heads, g = m.kv_heads, d = m.head_dim;
  const double dv = m.has_mla() ? m.mla_v_head_dim : d;
  const double qkv = kBf16Bytes * (a * d + g * d + g * dv);
  TokenBytes t;
  t.stored.sequence = 2 * kBf16Bytes * h;
  t.stored.tensor = qkv + kBf16Bytes * a * dv + kFp32Bytes * a;
  t.drops<kCoreAttn>().tensor = kFp32Bytes * a;
  t.drops<kLayernorm>().sequence = kBf16Bytes * h;
  if (m.has_mla()) t.drops<kMlaUpProj>().tensor = qkv;
  if (has_sparse_attention(m)) t.stored.replicated = indexer_bytes(m);
  return t;
}

/// Gated DeltaNet (linear attention) block, from the Qwen3-Next / Qwen3.5 layer (in_proj_qkvz,
/// in_proj_ba, causal conv1d on q/k/v, chunked gated delta rule, gated RMSNorm, out_proj), with
/// kk = key heads x key dim and vv = value heads x value dim:
///   sequence: norm input 2h + in_proj input 2h
///   tensor:   conv1d input 2*(2kk + vv) + conv output (the kernel's q, k, v) 2*(2kk + vv)
///             + gate z 2vv + kernel output (gated-norm input) 2vv + out_proj input 2vv
///             + decay and beta 2 x 2 per value head.
/// The kernel's per-chunk states are recomputed in backward (fla's chunk_gated_delta_rule).
TokenBytes linear_attention_block(const ModelShape& m) {
  const double h = m.hidden_size;
  const double kk = static_cast<double>(m.linear_key_heads) * m.linear_key_head_dim;
  const double vv = static_cast<double>(m.linear_value_heads) * m.linear_value_head_dim;
  TokenBytes t;
  t.stored.sequence = 2 * kBf16Bytes * h;
  t.stored.tensor =
      2 * kBf16Bytes * (2 * kk + vv) + 3 * kBf16Bytes * vv + 2 * kBf16Bytes * m.linear_value_heads;
  return t;
}

/// Mamba-2 block (Megatron-Core MambaLayer: norm, MambaMixer, residual; mamba_ssm's fused
/// mamba_split_conv1d_scan_combined, whose MambaSplitConv1dScanCombinedFn saves the in_proj output
/// zxbcdt and the scan output out_x and recomputes the convolution and the chunk states in
/// backward, mamba_ssm/ops/triton/ssd_combined.py; MambaMixer then applies the gated RMSNorm and
/// out_proj, megatron/core/ssm/mamba_mixer.py), with d = d_inner:
///   sequence: norm input 2h + in_proj input 2h
///   tensor:   in_proj output 2 x (2d + 2 x groups x d_state + heads) + scan output 2d + gated
///             output (the norm's input) 2d + norm output (out_proj input) 2d.
/// No recompute module applies to it (Megatron-Core's MambaLayer checkpoints none).
TokenBytes mamba_block(const ModelShape& m) {
  TokenBytes t;
  t.stored.sequence = 2 * kBf16Bytes * m.hidden_size;
  t.stored.tensor = kBf16Bytes * mamba_in_proj_outputs(m) + 3 * kBf16Bytes * mamba_inner(m);
  return t;
}

/// MLP of width f, per token, divided by TP. Korthikanti's MLP is 19*s*b*h for f = 4h (fc1 input
/// 2h, GeLU input 8h, fc2 input 8h, mask h); gated (SwiGLU): fc1 output 2*2f (the activation's
/// input) and the activation output (fc2 input) 2f = 6f; ungated (squared ReLU, Nemotron-H): fc1
/// output 2f and the activation output 2f = 4f.
double mlp_tensor(double ffn, bool gated) { return (gated ? 3 : 2) * kBf16Bytes * ffn; }

/// Dense MLP block: norm input 2h + fc1 input (the norm's output) 2h (sequence) + mlp_tensor.
/// Recompute modules: mlp drops mlp_tensor (the checkpoint keeps its input), layernorm the norm's
/// output.
TokenBytes dense_mlp_block(const ModelShape& m) {
  TokenBytes t;
  t.stored.tensor = mlp_tensor(m.dense_ffn_hidden_size, m.gated_mlp);
  t.stored.sequence = 2 * kBf16Bytes * m.hidden_size;
  t.drops<kMlp>().tensor = t.stored.tensor;
  t.drops<kLayernorm>().sequence = kBf16Bytes * m.hidden_size;
  return t;
}

/// MoE block. What Korthikanti's dense formula misses, added here:
///   sequence: norm input 2h + norm output 2h (the input of the router, the shared expert and the
///             dispatcher) + router scores FP32 4*E
///   tensor:   shared expert 6*fs, 4*fs ungated (as mlp_tensor)
///   per routed copy (k per token): the dispatched copy of the hidden state (the grouped fc1
///             input) 2h + fc1 output 2*2*fe/ETP (2*fe/ETP ungated) + activation output 2*fe/ETP +
///             its routing probability FP32 4 (applied in the activation).
/// Recompute modules (Megatron-Core MoELayer and its experts, megatron/core/transformer/moe/):
/// moe_act drops the activation output; shared_experts the shared expert's tensors; moe all but
/// the norm's input and output (the checkpoint's input), so it covers the other two; layernorm
/// the norm's output.
TokenBytes moe_block(const ModelShape& m, int etp) {
  const double h = m.hidden_size, fe = m.expert_ffn_hidden_size;
  TokenBytes t;
  t.stored.tensor = mlp_tensor(m.shared_expert_ffn_hidden_size, m.gated_mlp);
  t.stored.sequence = 2 * kBf16Bytes * h + kFp32Bytes * m.experts;
  t.stored.per_copy = kBf16Bytes * h + (m.gated_mlp ? 3 : 2) * kBf16Bytes * fe / etp + kFp32Bytes;
  t.drops<kMoeAct>().per_copy = kBf16Bytes * fe / etp;
  t.drops<kSharedExperts>().tensor = t.stored.tensor;
  t.drops<kMoe>() = {kFp32Bytes * m.experts, t.stored.tensor, 0, t.stored.per_copy};
  t.drops<kLayernorm>().sequence = kBf16Bytes * h;
  return t;
}

/// The average decoder layer's TokenBytes: every block kind weighted by its share of the layers
/// (ModelShape counts layers per kind, not their order). A layer may hold a mixer, an MLP or both;
/// a parallel hybrid's mixers (parallel_mixer_layers) share one norm input and block input (4h).
TokenBytes average_layer(const ModelShape& m, int etp) {
  TokenBytes t;
  if (m.layers <= 0) return t;
  const double layers = m.layers;
  if (m.attention_layers > 0) t.add_scaled(attention_block(m), m.attention_layers / layers);
  if (m.linear_attention_layers > 0)
    t.add_scaled(linear_attention_block(m), m.linear_attention_layers / layers);
  if (m.mamba_layers > 0) t.add_scaled(mamba_block(m), m.mamba_layers / layers);
  if (const double shared = parallel_mixer_layers(m); shared > 0)
    t.stored.sequence -= 2 * kBf16Bytes * m.hidden_size * shared / layers;
  if (m.dense_mlp_layers > 0) t.add_scaled(dense_mlp_block(m), m.dense_mlp_layers / layers);
  if (m.moe_layers > 0) t.add_scaled(moe_block(m, etp), m.moe_layers / layers);
  return t;
}

/// Bytes one average layer stores per micro-batch on one GPU.
struct LayerBytes {
  double full = 0;       ///< every activation stored (no recompute)
  double selective = 0;  ///< selective recompute: what its modules drop taken off `full`
  double input = 0;      ///< full recompute: only the layer's input hidden state
};

/// `tokens` = tokens of the micro-batch on this CP rank. Sequence terms on tokens / TP with SP
/// (tokens without); tensor terms on tokens / TP; routed copies: k x tokens x ETP / TP per expert
/// rank on average (the stage's tokens x k copies, each on ETP ranks, spread over the stage's
/// DP x CP x TP ranks; Megatron-Core's alltoall dispatcher gathers over the expert-TP group).
/// The whole-MoE module (moe) covers moe_act and shared_experts, which are not taken off twice.
LayerBytes layer_bytes(const ModelShape& m, const Layout& l, double tokens) {
  const double tp = std::max(l.tp, 1);
  const int etp = std::max(l.etp, 1);
  const double sequence_tokens = l.sequence_parallel ? tokens / tp : tokens;
  const double copies = m.experts_per_token * tokens * etp / tp;
  const TokenBytes t = average_layer(m, etp);
  auto bytes = [&](const ByteSplit& b) {
    return sequence_tokens * b.sequence + tokens / tp * b.tensor + tokens * b.replicated +
           copies * b.per_copy;
  };
  LayerBytes out;
  out.full = bytes(t.stored);
  out.selective = out.full;
  if (l.recompute) {
    const bool whole_moe = l.recompute->recomputes_module("moe");
    for (std::size_t i = 0; i < kModuleCount; ++i) {
      if (whole_moe && (i == kMoeAct || i == kSharedExperts)) continue;
      if (l.recompute->recomputes_module(kRecomputeModules[i]))
        out.selective -= bytes(t.dropped[i]);
    }
  }
  out.input = sequence_tokens * kBf16Bytes * m.hidden_size;
  return out;
}

/// Activations one stage holds at its peak. Per micro-batch, for each of the VPP chunks of
/// `chunk` layers (Megatron-Core's recompute options,
/// megatron/core/transformer/transformer_block.py):
///   none:            chunk x full
///   selective:       chunk x selective
///   full/uniform k:  ceil(chunk / k) x input (each k-layer unit keeps its input)
///   full/block n:    min(n, chunk) x input + the rest x full
/// times the in-flight micro-batches, plus, with full recompute, the one unit being recomputed
/// during a backward (k layers' full activations for uniform, one layer's for block).
double stage_activation_bytes(const PipelineStage& stage, const Layout& l, const LayerBytes& b) {
  const int vpp = std::max(l.vpp, 1);
  const double chunk = static_cast<double>(stage.layers) / vpp;
  double per_microbatch = vpp * chunk * b.full;
  double recompute_unit = 0;
  if (l.recompute && l.recompute->granularity == "selective") {
    per_microbatch = vpp * chunk * b.selective;
  } else if (l.recompute && l.recompute->granularity == "full") {
    const double n = std::max(l.recompute->num_layers.value_or(1), 1);
    if (l.recompute->method == "block") {
      const double kept = std::min(n, chunk);
      per_microbatch = vpp * (kept * b.input + (chunk - kept) * b.full);
      recompute_unit = kept > 0 ? b.full : 0;
    } else {
      per_microbatch = vpp * std::ceil(chunk / n) * b.input;
      recompute_unit = std::min(n, chunk) * b.full;
    }
  }
  return stage.in_flight_microbatches * per_microbatch + recompute_unit;
}

}  // namespace

MemoryEstimate estimate_memory(const ModelShape& model, const ClusterShape& cluster,
                               const PlanWorkload& workload, const Layout& layout,
                               const MemoryOptions& options) {
  const double tp = std::max(layout.tp, 1);
  const double ep = std::max(layout.ep, 1);
  const double etp = std::max(layout.etp, 1);
  const double cp = std::max(layout.cp, 1);
  const int rows = std::max(layout.rows_per_microbatch, 1);
  const int dp = std::max(implied_data_parallel(cluster, layout), 1);
  const int expert_dp = std::max(implied_expert_data_parallel(cluster, layout), 1);
  const int microbatches =
      static_cast<int>(std::max<std::int64_t>(workload.global_batch / (dp * rows), 1));
  const double optimizer_on_gpu =
      1.0 - std::clamp(layout.offload ? layout.offload->optimizer_fraction : 0.0, 0.0, 1.0);

  // Tokens of one micro-batch on one GPU before TP/SP: the rows split over CP.
  const double tokens = static_cast<double>(rows) * static_cast<double>(workload.row_tokens) / cp;
  const LayerBytes per_layer = layer_bytes(model, layout, tokens);

  // MTP layers (last stage; weights only, the protocol trains without the MTP loss): each
  // approximated as one average dense layer plus its 2h x h projection of [embedding; hidden];
  // it shares the main model's embedding and output layer (DeepSeek-V3 sec. 2.2, Megatron-Core
  // MTP).
  const double h = model.hidden_size;
  const double mtp_params = model.mtp_layers * (model.dense_params_per_layer() + 2 * h * h);
  // A tied output layer is a second copy of the embedding on the last stage when PP > 1.
  const double output_params =
      model.tied_embeddings ? (layout.pp > 1 ? static_cast<double>(model.embedding_params) : 0.0)
                            : static_cast<double>(model.output_params);

  MemoryEstimate estimate;
  const std::vector<PipelineStage> stages = pipeline_stages(model, layout, microbatches);
  estimate.stages.reserve(stages.size());
  for (const PipelineStage& stage : stages) {
    StageMemory s;
    s.stage = stage.index;
    s.layers = stage.layers;
    s.in_flight_microbatches = stage.in_flight_microbatches;

    double dense_params = stage.layers * model.dense_params_per_layer();
    if (stage.has_embedding) dense_params += static_cast<double>(model.embedding_params);
    if (stage.has_output) dense_params += output_params + mtp_params;
    // The indexer's weights are whole on every TP rank (Megatron-Core DSAIndexer, duplicated).
    const double duplicated = stage.layers * tp_duplicated_params_per_layer(model);
    const double dense_per_gpu = (dense_params - duplicated) / tp + duplicated;
    const double expert_per_gpu = stage.layers * model.expert_params_per_layer() / (ep * etp);
    const double params_per_gpu = dense_per_gpu + expert_per_gpu;

    // Megatron-LM theoretical_memory_usage.py, compute_weight_and_optimizer_memory: BF16 weight
    // 2 B + FP32 main gradient 4 B per parameter (BF16, 2 B, without grad_reduce_in_fp32: the DDP
    // gradient buffer takes the parameter's dtype); the distributed optimizer's 12 B sharded over
    // the data-parallel group with CP (dense) or the expert data-parallel group (experts).
    s.weights_bytes = kBf16Bytes * params_per_gpu;
    s.gradients_bytes = gradient_bytes_per_param(workload) * params_per_gpu;
    s.optimizer_bytes = optimizer_on_gpu * kOptimizerBytesPerParam *
                        (dense_per_gpu / (dp * cp) + expert_per_gpu / expert_dp);
    s.activations_bytes = stage_activation_bytes(stage, layout, per_layer);
    // One micro-batch's logits: BF16 logits + FP32 copy for the loss, vocabulary split over TP
    // (a fused cross-entropy keeps less).
    if (stage.has_output) {
      s.logits_bytes =
          tokens * static_cast<double>(model.vocab_size) / tp * (kBf16Bytes + kFp32Bytes);
    }
    s.total_bytes = s.weights_bytes + s.gradients_bytes + s.optimizer_bytes + s.activations_bytes +
                    s.logits_bytes;
    if (estimate.stages.empty() || s.total_bytes > estimate.peak.total_bytes) estimate.peak = s;
    estimate.stages.push_back(s);
  }
  estimate.memory_bytes = estimate.peak.total_bytes;
  estimate.capacity_bytes = cluster.gpu.memory_gb * 1e9;
  estimate.usable_bytes = usable_bytes_per_gpu(cluster, options);
  estimate.fits = estimate.memory_bytes <= estimate.usable_bytes;
  return estimate;
}

const std::vector<std::string>& memory_left_out() {
  static const std::vector<std::string> left_out = {
      "NCCL communicator buffers",
      "CUDA graphs",
      "caching-allocator fragmentation",
      "CUDA context, cuBLAS/cuDNN workspaces and kernel temporaries",
      "MoE routing imbalance above the average k x tokens per expert rank",
      "pipeline send/receive buffers and gradients of activations during backward",
  };
  return left_out;
}

double usable_bytes_per_gpu(const ClusterShape& cluster, const MemoryOptions& options) {
  return cluster.gpu.memory_gb * 1e9 * (1.0 - options.headroom_fraction);
}

double state_bytes_floor_per_gpu(const ModelShape& model, const ClusterShape& cluster,
                                 const PlanWorkload& workload) {
  // Per GPU, estimate_memory charges (2 + g) B on each parameter it holds (every parameter is on
  // at least one GPU) and 12 B on its shard of the optimizer (the shards of all GPUs cover every
  // parameter once): summed over the W GPUs, at least (2 + g + 12) B per parameter.
  const double layer_params = static_cast<double>(model.layers) *
                              (model.dense_params_per_layer() + model.expert_params_per_layer());
  const double per_param =
      kBf16Bytes + gradient_bytes_per_param(workload) + kOptimizerBytesPerParam;
  return per_param * layer_params / std::max(cluster.gpus, 1);
}

}  // namespace openrecipes
