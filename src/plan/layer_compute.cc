#include "plan/layer_compute.h"

#include <algorithm>
#include <array>

#include "plan/dtype_bytes.h"
#include "plan/layer_parts.h"

namespace openrecipes {
namespace {

// Kernels one forward pass launches per layer part (norm, GEMMs, rotary, attention, residual;
// router, top-k, permute, grouped GEMMs, activation, unpermute), counted from Megatron-Core's
// TransformerLayer with Transformer Engine modules; an estimate, the fitted per-kernel cost
// absorbs its error.
// Mamba-2 (Megatron-Core MambaLayer on the mamba_ssm fused path): norm, in_proj, conv1d,
// chunk_cumsum, chunk_state, state_passing, bmm_chunk, chunk_scan, A = -exp(A_log), gated norm,
// out_proj, residual. The indexer: its three projections, key norm, two rotaries, scoring, top-k.
constexpr double kAttentionKernels = 8, kDeltaNetKernels = 12, kDenseMlpKernels = 5,
                 kMoeKernels = 14, kOutputKernels = 3, kMambaKernels = 12, kIndexerKernels = 8;

double to_double(std::int64_t v) { return static_cast<double>(v); }

// One linear layer of a layer kind: the GEMM its forward runs on the GPU and which rate it uses.
struct Linear {
  GemmShape shape;
  bool low_precision;  // runs at the run's linear precision (else BF16)
};

// The linear layers of one block, at most two (in and out); a fixed array, since the search
// computes millions of blocks and a std::vector would allocate for each.
class Linears {
 public:
  void push_back(const Linear& l) { items_.at(count_++) = l; }
  const Linear* begin() const { return items_.data(); }
  const Linear* end() const { return items_.data() + count_; }
  std::size_t size() const { return count_; }
  const Linear& operator[](std::size_t i) const { return items_.at(i); }
  const Linear& front() const { return items_.at(0); }

 private:
  std::array<Linear, 2> items_{};
  std::size_t count_ = 0;
};

// Forward, dgrad and wgrad seconds of `linear`, and the bytes of its FP8 casts.
struct LinearTime {
  double fwd_s = 0, bwd_s = 0, cast_fwd_bytes = 0, cast_bwd_bytes = 0;
};

LinearTime linear_time(Linear l, const ComputeRates& r, bool grouped = false) {
  GemmDevice dev = l.low_precision ? r.linear : r.bf16;
  if (grouped) dev.efficiency *= r.grouped_gemm_efficiency;
  l.shape.input_bytes = l.low_precision ? r.linear_input_bytes : kBf16Bytes;
  const GemmShape& s = l.shape;
  GemmShape dgrad = s, wgrad = s;
  dgrad.n = s.k, dgrad.k = s.n;                 // dX[m x k] = dY[m x n] W^T
  wgrad.m = s.k, wgrad.n = s.n, wgrad.k = s.m;  // dW[k x n] = X^T dY, reduced over m
  LinearTime t;
  t.fwd_s = gemm_time_s(s, dev);
  t.bwd_s = gemm_time_s(dgrad, dev) + gemm_time_s(wgrad, dev);
  if (l.low_precision && r.low_precision) {
    // Each cast reads BF16 once and writes two low-precision copies, row-wise for this GEMM and
    // column-wise for the backward GEMM that reduces over the other axis (Transformer Engine's
    // quantizers with rowwise and columnwise usage: Hopper's FP8 GEMMs take only the TN layout,
    // so the second copy is the transpose, fused as cast-transpose; MXFP8 scales 1 x 32 blocks
    // along the reduction axis, so each axis needs its own): 4 bytes per element, scales aside.
    // NVFP4 writes half-byte copies but its recipe (Transformer Engine's NVFP4BlockScaling) also
    // runs a random Hadamard transform over the column-wise inputs, so 4 stays its count too.
    t.cast_fwd_bytes = 4 * s.groups * s.m * s.k;
    t.cast_bwd_bytes = 4 * s.groups * s.m * s.n;
  }
  return t;
}

// The column-parallel (in) and row-parallel (out) GEMMs of a block with `params` weights whose
// inner width is `inner` (the MLP's ffn size, the attention's heads x head_dim): in has
// (params - inner x h) / h outputs, out reduces over inner; both divided by `split`.
void add_block(Linears& out, double m, double h, double params, double inner, double split,
               double groups, bool low_precision) {
  if (params <= 0 || m <= 0) return;
  double in_n = (params - inner * h) / h;
  if (inner <= 0 || in_n <= 0) inner = params / (2 * h), in_n = params / (2 * h);
  out.push_back({{m, in_n / split, h, groups}, low_precision});
  out.push_back({{m, h, inner / split, groups}, low_precision});
}

// Bytes per element of width f an MLP's activation moves: gated reads gate and up (2f) and writes
// f; ungated (squared ReLU) reads f and writes f (2 bytes each).
double activation_bytes(const ModelShape& m) { return m.gated_mlp ? 6.0 : 4.0; }

struct Totals {
  ComputeTime t;
  double cast_fwd_bytes = 0, cast_bwd_bytes = 0;
};

void add_linears(Totals& tot, const Linears& linears, double count, bool expert,
                 const ComputeRates& r) {
  for (const Linear& l : linears) {
    LinearTime lt = linear_time(l, r, expert);
    (expert ? tot.t.expert_gemm_fwd_s : tot.t.dense_gemm_fwd_s) += count * lt.fwd_s;
    (expert ? tot.t.expert_gemm_bwd_s : tot.t.dense_gemm_bwd_s) += count * lt.bwd_s;
    tot.cast_fwd_bytes += count * lt.cast_fwd_bytes;
    tot.cast_bwd_bytes += count * lt.cast_bwd_bytes;
  }
}

}  // namespace

double mamba_scan_flop_per_token(const ModelShape& m, double heads, double groups,
                                 double row_tokens) {
  const double q = std::min(kMambaChunkTokens, row_tokens);
  const double n = m.mamba_state_size, p = m.mamba_head_dim;
  if (q <= 0) return 0;
  return groups * 2 * q * n + heads * (2 * q * p + 2 * n * p + 2 * n * p / q + 2 * n * p);
}

double mamba_scan_bytes_per_token(const ModelShape& m, double heads, double groups,
                                  double row_tokens) {
  const double q = std::min(kMambaChunkTokens, row_tokens);
  const double n = m.mamba_state_size, p = m.mamba_head_dim;
  if (q <= 0) return 0;
  return 12 * heads * p * n / q + 8 * groups * q + 6 * heads * p + 8 * groups * n;
}

ComputeTime micro_batch_compute(const ModelShape& model, const StageWork& w,
                                const ComputeRates& r) {
  Totals tot;
  const double h = model.hidden_size, share = w.layer_share;
  const double tp = w.tp, etp = w.etp;
  const double m = w.rows * w.row_tokens / w.cp;  // tokens per GPU in each GEMM
  const double sp_tokens = m / tp;                // tokens per GPU outside TP regions
  const double attn_layers = to_double(model.attention_layers) * share;
  const double gdn_layers = to_double(model.linear_attention_layers) * share;
  const double mlp_layers = to_double(model.dense_mlp_layers) * share;
  const double moe_layers = to_double(model.moe_layers) * share;
  const double mamba_layers = to_double(model.mamba_layers) * share;
  double bytes_fwd = 0;  // memory-bound bytes of one forward pass
  // Selective recompute: the GEMM and kernel seconds and the memory-bound bytes of the modules'
  // second forward (the whole MoE layer covers its activation and shared experts).
  const Recompute& rc = w.recompute;
  const bool recompute_moe = rc.recomputes_module("moe");
  double recompute_s = 0, recompute_bytes = 0;
  // A norm reads its input and writes its output, 2 bytes each per element.
  const double norm_bytes = rc.recomputes_module("layernorm") ? 4 * h * sp_tokens : 0;

  // Softmax attention: projections, the kernel, norm + residual (10 h bytes per token), rotary.
  if (attn_layers > 0) {
    Linears lin;
    double inner = to_double(model.attention_heads) * model.head_dim;
    add_block(lin, m, h, to_double(model.attention_params), inner, tp, 1, true);
    add_linears(tot, lin, attn_layers, false, r);
    double full = full_attention_keys(model, w.row_tokens);
    double sliding = std::min(to_double(model.sliding_window), w.row_tokens / 2);
    double full_layers = to_double(model.attention_layers - model.sliding_window_layers) * share;
    double sliding_layers = to_double(model.sliding_window_layers) * share;
    double pairs =
        m * (model.attention_heads / tp) * (full_layers * full + sliding_layers * sliding);
    double matmul_flop = 4.0 * model.head_dim * pairs;
    tot.t.attention_fwd_s = matmul_flop / r.attention_flop_per_s + pairs / r.exp_per_s;
    tot.t.attention_bwd_s = 2.5 * matmul_flop / r.attention_flop_per_s + pairs / r.exp_per_s;
    bytes_fwd +=
        attn_layers * (10 * h * sp_tokens +
                       4.0 * (model.attention_heads + model.kv_heads) * model.head_dim / tp * m);
    tot.t.kernels_fwd += attn_layers * kAttentionKernels;
    if (rc.recomputes_module("core_attn")) recompute_s += tot.t.attention_fwd_s;
    recompute_bytes += attn_layers * norm_bytes;
  }
  // MLA's up-projections of the query and key/value latents, and RoPE on the query's and the
  // shared key's rotary parts (read and write), again under mla_up_proj.
  if (attn_layers > 0 && model.has_mla() && rc.recomputes_module("mla_up_proj")) {
    const double a = model.attention_heads, rope = model.mla_rope_head_dim;
    Linears up;
    if (model.mla_q_lora_rank > 0)
      up.push_back({{m, a * model.head_dim / tp, to_double(model.mla_q_lora_rank), 1}, true});
    up.push_back({{m, a * (model.head_dim - rope + model.mla_v_head_dim) / tp,
                   to_double(model.mla_kv_lora_rank), 1},
                  true});
    for (const Linear& l : up) recompute_s += attn_layers * linear_time(l, r).fwd_s;
    recompute_bytes += attn_layers * 4 * (a / tp + 1) * rope * m;
  }
  // The sparse-attention indexer of every softmax-attention layer: duplicated on each TP rank,
  // so its GEMM and scoring run on all m tokens with every indexer head.
  if (attn_layers > 0 && has_sparse_attention(model) && model.indexer_params > 0) {
    Linears lin;
    lin.push_back({{m, to_double(model.indexer_params) / h, h, 1}, true});
    add_linears(tot, lin, attn_layers, false, r);
    double pairs = attn_layers * m * indexer_keys(model, w.row_tokens);
    double flop = 2.0 * model.indexer_heads * model.indexer_head_dim * pairs;
    tot.t.indexer_fwd_s = flop / r.attention_flop_per_s;
    tot.t.indexer_bwd_s = 2 * tot.t.indexer_fwd_s;
    tot.t.kernels_fwd += attn_layers * kIndexerKernels;
  }
  // Gated DeltaNet: projections, the chunked recurrence, convolution and gates on its inputs.
  if (gdn_layers > 0) {
    Linears lin;
    double inner = to_double(model.linear_value_heads) * model.linear_value_head_dim;
    add_block(lin, m, h, to_double(model.linear_attention_params), inner, tp, 1, true);
    add_linears(tot, lin, gdn_layers, false, r);
    double dk = model.linear_key_head_dim, dv = model.linear_value_head_dim;
    double flop = gdn_layers * m * (model.linear_value_heads / tp) *
                  (4 * dk * dv + 2 * kDeltaNetChunkTokens * (dk + dv));
    tot.t.gdn_fwd_s = flop / r.attention_flop_per_s;
    tot.t.gdn_bwd_s = 2 * tot.t.gdn_fwd_s;
    bytes_fwd += gdn_layers * (10 * h * sp_tokens + 4 * lin.front().shape.n * m);
    tot.t.kernels_fwd += gdn_layers * kDeltaNetKernels;
  }
  // Mamba-2: in_proj and out_proj, the SSD scan and its decay exponentials; as memory-bound the
  // scan's HBM traffic, the depthwise convolution (read and write x, B, C) and the gated norm
  // (read y and z, write).
  if (mamba_layers > 0) {
    Linears lin;
    const double inner = mamba_inner(model);
    lin.push_back({{m, mamba_in_proj_outputs(model) / tp, h, 1}, true});
    lin.push_back({{m, h, inner / tp, 1}, true});
    add_linears(tot, lin, mamba_layers, false, r);
    const double heads = model.mamba_heads / tp, groups = model.mamba_groups / tp;
    double flop = mamba_layers * m * mamba_scan_flop_per_token(model, heads, groups, w.row_tokens);
    double exps = mamba_layers * m * heads * std::min(kMambaChunkTokens, w.row_tokens);
    tot.t.ssm_fwd_s = flop / r.attention_flop_per_s + exps / r.exp_per_s;
    tot.t.ssm_bwd_s = 2 * tot.t.ssm_fwd_s;
    bytes_fwd +=
        mamba_layers *
        (10 * h * sp_tokens + 4 * mamba_conv_channels(model) / tp * m + 6 * inner / tp * m +
         mamba_scan_bytes_per_token(model, heads, groups, w.row_tokens) * m);
    tot.t.kernels_fwd += mamba_layers * kMambaKernels;
  }
  // A parallel hybrid's mixers share one norm and residual add.
  if (double shared = parallel_mixer_layers(model) * share; shared > 0) {
    bytes_fwd -= shared * 10 * h * sp_tokens;
  }
  // Dense MLP: up (gate + up, or up alone when ungated) and down, the activation (gated: read 2f,
  // write f; ungated: read f, write f).
  if (mlp_layers > 0) {
    Linears lin;
    add_block(lin, m, h, to_double(model.dense_mlp_params), model.dense_ffn_hidden_size, tp, 1,
              true);
    const double gemm_before = tot.t.dense_gemm_fwd_s;
    add_linears(tot, lin, mlp_layers, false, r);
    const double activation = activation_bytes(model) * model.dense_ffn_hidden_size / tp * m;
    bytes_fwd += mlp_layers * (10 * h * sp_tokens + activation);
    tot.t.kernels_fwd += mlp_layers * kDenseMlpKernels;
    if (rc.recomputes_module("mlp")) {
      recompute_s += tot.t.dense_gemm_fwd_s - gemm_before;
      recompute_bytes += mlp_layers * activation;
    }
    recompute_bytes += mlp_layers * norm_bytes;
  }
  // MoE: router, routed experts as one grouped GEMM, shared expert, permute and unpermute.
  if (moe_layers > 0 && model.experts > 0) {
    double local_experts = std::max(1.0, to_double(model.experts) / w.ep);
    double routed = sp_tokens * model.experts_per_token * etp * w.routing_imbalance;
    tot.t.tokens_per_expert = routed / local_experts;
    const double expert_before = tot.t.expert_gemm_fwd_s, dense_before = tot.t.dense_gemm_fwd_s;
    Linears experts;
    add_block(experts, tot.t.tokens_per_expert, h, to_double(model.expert_params),
              model.expert_ffn_hidden_size, etp, local_experts, true);
    add_linears(tot, experts, moe_layers, true, r);
    // Fused (fc1 + activation + quantization in one kernel, forward and backward): the
    // activation's input and output never reach HBM, nor does the second GEMM's input cast
    // forward or the first GEMM's output-gradient cast backward.
    const double expert_activation =
        w.fused_expert_mlp ? 0 : activation_bytes(model) * model.expert_ffn_hidden_size / etp;
    if (w.fused_expert_mlp && experts.size() == 2) {
      tot.cast_fwd_bytes -= moe_layers * linear_time(experts[1], r, true).cast_fwd_bytes;
      tot.cast_bwd_bytes -= moe_layers * linear_time(experts[0], r, true).cast_bwd_bytes;
    }
    Linears router;
    router.push_back({{sp_tokens, to_double(model.experts), h, 1}, false});
    add_linears(tot, router, moe_layers, false, r);
    // The shared expert alone: what its overlap can hide the all-to-all under.
    Linears shared;
    double before = tot.t.dense_gemm_fwd_s;
    add_block(shared, m, h, to_double(model.shared_expert_params),
              model.shared_expert_ffn_hidden_size, tp, 1, true);
    add_linears(tot, shared, moe_layers, false, r);
    tot.t.shared_expert_fwd_s = tot.t.dense_gemm_fwd_s - before;
    // Permute and unpermute each read and write every routed copy (2 + 2 bytes per element).
    const double permute_bytes = w.permute_in_dispatch ? 0 : 8 * h * routed / etp;
    const double moe_bytes =
        moe_layers * (10 * h * sp_tokens + 8.0 * model.experts * sp_tokens + permute_bytes +
                      expert_activation * routed +
                      activation_bytes(model) * model.shared_expert_ffn_hidden_size / tp * m);
    bytes_fwd += moe_bytes;
    tot.t.kernels_fwd += moe_layers * (kMoeKernels - (w.permute_in_dispatch ? 2 : 0));
    if (recompute_moe) {
      recompute_s +=
          tot.t.expert_gemm_fwd_s - expert_before + tot.t.dense_gemm_fwd_s - dense_before;
      recompute_bytes += moe_bytes;
    } else {
      if (rc.recomputes_module("moe_act"))
        recompute_bytes += moe_layers * expert_activation * routed;
      if (rc.recomputes_module("shared_experts")) recompute_s += tot.t.shared_expert_fwd_s;
    }
    recompute_bytes += moe_layers * norm_bytes;
  }
  // The output layer (BF16) and the loss on the last stage: logits written and read in FP32.
  if (w.has_output) {
    Linears out;
    double vocab = to_double(model.output_params > 0 ? model.output_params / model.hidden_size
                                                     : model.vocab_size);
    out.push_back({{m, vocab / tp, h, 1}, false});
    LinearTime lt = linear_time(out.front(), r);
    tot.t.output_fwd_s = lt.fwd_s;
    tot.t.output_bwd_s = lt.bwd_s;
    bytes_fwd += m * vocab / tp * 4 * 2;
    tot.t.kernels_fwd += kOutputKernels;
  }
  double bw = r.hbm_bytes_per_s;
  tot.t.memory_bound_fwd_s = bw > 0 ? (bytes_fwd + tot.cast_fwd_bytes) / bw : 0;
  tot.t.memory_bound_bwd_s = bw > 0 ? (2 * bytes_fwd + tot.cast_bwd_bytes) / bw : 0;
  tot.t.selective_recompute_fwd_s = recompute_s + (bw > 0 ? recompute_bytes / bw : 0);
  return tot.t;
}

}  // namespace openrecipes
