#include "plan/speed_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "figures/figures.h"
#include "layout/layout_rules.h"
#include "layout/pipeline_stages.h"

namespace openrecipes {
namespace {

constexpr double kBf16Bytes = 2;  // activations, parameters gathered, a2a payloads
constexpr double kFp32Bytes = 4;  // gradients reduced in FP32 (Megatron-Bridge's grad_reduce_in_fp32)
// Gated DeltaNet chunk length: the chunked kernels of flash-linear-attention (chunk_gated_delta_rule)
// use 64-token chunks; Yang et al. 2024 (arXiv:2412.06464), sec. 3.
constexpr double kDeltaNetChunkTokens = 64;

double d(std::int64_t v) { return static_cast<double>(v); }

/// Seconds of a ring all-gather or reduce-scatter of a `bytes` buffer over `group` ranks at
/// `bytes_per_s` per rank: each rank moves (g - 1) / g of the buffer (Thakur et al. 2005).
double ring_collective_s(double bytes, int group, double bytes_per_s) {
  if (group <= 1 || bytes_per_s <= 0) return 0;
  return (group - 1.0) / group * bytes / bytes_per_s;
}

/// One direction's link per GPU, bytes/s: NVLink when `span` consecutive ranks fit in a node,
/// else the network, scaled by the achieved fraction.
double link_bytes_per_s(const ClusterShape& cluster, int span, double efficiency) {
  bool in_node = cluster.per_node <= 0 || span <= cluster.per_node;
  double gb = in_node ? cluster.gpu.nvlink_gb_per_s : cluster.gpu.network_gb_per_s;
  return gb * 1e9 * efficiency;
}

const char* link_name(const ClusterShape& cluster, int span) {
  return cluster.per_node <= 0 || span <= cluster.per_node ? "NVLink" : "network";
}

}  // namespace

ForwardFlops forward_flops_per_token(const ModelShape& m, std::int64_t row_tokens) {
  ForwardFlops f;
  // Linear layers: 2 FLOP (multiply and add) per weight a token touches (Kaplan et al. 2020,
  // arXiv:2001.08361, sec. 2.1): attention and GDN projections, dense MLPs, the top-k routed
  // experts, the shared expert and the router of every MoE layer.
  double weights = d(m.attention_layers) * d(m.attention_params) +
                   d(m.linear_attention_layers) * d(m.linear_attention_params) +
                   d(m.dense_mlp_layers) * d(m.dense_mlp_params) +
                   d(m.moe_layers) * (m.experts_per_token * d(m.expert_params) + d(m.shared_expert_params) +
                                      d(m.router_params));
  f.layer_matmul_flop = 2 * weights;
  f.output_flop = 2 * d(m.output_params > 0 ? m.output_params : m.vocab_size * m.hidden_size);
  // Softmax attention: QK^T and AV each cost 2 x heads x head_dim FLOP per attended key, so
  // 4 x heads x head_dim x context per token and layer. Causal masking halves the full row's
  // context (mean s / 2), as Megatron-LM's num_floating_point_operations counts it
  // (Narayanan et al. 2021, arXiv:2104.04473, appendix). A sliding-window layer attends to at most
  // its window.
  double full_context = d(row_tokens) / 2;
  double sliding_context = std::min(d(m.sliding_window), full_context);
  double per_context = 4.0 * m.attention_heads * m.head_dim;
  int full_layers = m.attention_layers - m.sliding_window_layers;
  f.attention_core_flop = per_context * (full_layers * full_context + m.sliding_window_layers * sliding_context);
  // Gated DeltaNet, chunked delta rule with chunk C (Yang et al. 2024, arXiv:2412.06464, sec. 3.2;
  // our count, an assumption): per value head and token, the state update and output read
  // (S^T k, S q against the dk x dv state: 4 dk dv) plus the intra-chunk attention-like products
  // over the C tokens of its chunk (2 C (dk + dv)).
  double dk = m.linear_key_head_dim, dv = m.linear_value_head_dim;
  f.linear_attention_core_flop = d(m.linear_attention_layers) * m.linear_value_heads *
                                 (4 * dk * dv + 2 * kDeltaNetChunkTokens * (dk + dv));
  return f;
}

SpeedEstimate estimate_speed(const ModelShape& model, const ClusterShape& cluster, const PlanWorkload& workload,
                             const Layout& layout, const SpeedParameters& p) {
  SpeedEstimate e;
  const int tp = std::max(layout.tp, 1), pp = std::max(layout.pp, 1), cp = std::max(layout.cp, 1);
  const int vpp = std::max(layout.vpp, 1), ep = std::max(layout.ep, 1), etp = std::max(layout.etp, 1);
  const int world = std::max(cluster.gpus, 1);
  const int dp = std::max(implied_data_parallel(cluster, layout), 1);
  const int rows_per_mb = std::max(layout.rows_per_microbatch, 1);
  const double s = d(workload.row_tokens);
  // Micro-batches per DP rank per step.
  const double m = std::max(1.0, d(workload.global_batch) / (dp * rows_per_mb));
  const int layers = std::max(model.layers, 1);

  // ---- FLOPs per micro-batch on one GPU of the most loaded stage.
  // The stage's GPUs (TP x CP x DP of them) share its tokens evenly: TP and CP split each row's
  // dense work, and EP spreads the routed experts' tokens over the stage (balanced routing), so one
  // GPU does rows x s / (TP x CP) tokens' worth of every layer of the stage.
  ForwardFlops f = forward_flops_per_token(model, workload.row_tokens);
  const double tokens_per_gpu = rows_per_mb * s / (tp * cp);
  std::vector<PipelineStage> stages = pipeline_stages(model, layout, static_cast<int>(m));
  const PipelineStage* worst = nullptr;
  double worst_flop = -1;
  for (const PipelineStage& st : stages) {
    double flop = st.layers * f.total() / layers + (st.has_output ? f.output_flop : 0);
    if (flop > worst_flop) worst_flop = flop, worst = &st;
  }
  const int stage_layers = worst ? worst->layers : layers;
  const bool has_output = worst ? worst->has_output : true;
  const double layer_share = static_cast<double>(stage_layers) / layers;

  // Recompute (Megatron-LM --recompute-granularity/-method/-num-layers): full recomputes the
  // forward of whole layers, checkpointed in units; uniform splits every virtual chunk's layers into
  // units of num_layers, block checkpoints the first num_layers layers of each chunk one by one.
  // Selective recomputes core (softmax) attention only.
  double recomputed_layers = 0, recompute_units = 0, selective_share = 0;
  std::string recompute_text = "none";
  if (layout.recompute) {
    const Recompute& r = *layout.recompute;
    int k = std::max(r.num_layers.value_or(1), 1);
    int chunk_layers = std::max(stage_layers / vpp, 1);
    if (r.granularity == "full") {
      if (r.method == "block") {
        recomputed_layers = d(std::min(k, chunk_layers)) * vpp;
        recompute_units = recomputed_layers;
      } else {
        recomputed_layers = stage_layers;
        recompute_units = std::ceil(static_cast<double>(chunk_layers) / k) * vpp;
      }
      recompute_text = fmt::format("full {} of {} layers in {} units", recomputed_layers, stage_layers,
                                   recompute_units);
    } else if (r.granularity == "selective") {
      selective_share = 1;
      recompute_text = "selective (core attention)";
    }
  }
  const double recompute_share = stage_layers > 0 ? recomputed_layers / stage_layers : 0;

  // Forward + backward (2 x forward, Narayanan et al. 2021) + recompute, per micro-batch per GPU.
  const double matmul_flop_fwd = tokens_per_gpu * f.layer_matmul_flop * layer_share;
  const double output_flop_fwd = has_output ? tokens_per_gpu * f.output_flop : 0;
  const double attention_flop_fwd = tokens_per_gpu * f.attention_core_flop * layer_share;
  const double gdn_flop_fwd = tokens_per_gpu * f.linear_attention_core_flop * layer_share;
  const double matmul_flop = matmul_flop_fwd * (3 + recompute_share) + 3 * output_flop_fwd;
  const double core_flop = attention_flop_fwd * (3 + std::max(recompute_share, selective_share)) +
                           gdn_flop_fwd * (3 + recompute_share);
  e.flop_per_step_per_gpu = m * (matmul_flop + core_flop);

  // Rates: FP8 runs the decoder's linear layers at the FP8 peak; the output layer and the attention
  // kernels stay in BF16 (Transformer Engine's FP8 recipes cover the layers' linear modules only).
  const double bf16_peak = cluster.gpu.peak_bf16_dense_flop_per_s;
  const double linear_peak = workload.precision == Precision::kFp8 && cluster.gpu.peak_fp8_dense_flop_per_s > 0
                                 ? cluster.gpu.peak_fp8_dense_flop_per_s
                                 : bf16_peak;
  const double matmul_s = (matmul_flop_fwd * (3 + recompute_share)) / (linear_peak * p.matmul_efficiency) +
                          3 * output_flop_fwd / (bf16_peak * p.matmul_efficiency);
  const double core_s = core_flop / (bf16_peak * p.attention_efficiency);

  // ---- Communication per micro-batch. Ranks are ordered TP, CP, DP (EP within it), PP
  // (Megatron-Core's default order tp-cp-ep-dp-pp), so a group of stride x size consecutive ranks
  // uses NVLink when that span fits in a node.
  const double h = model.hidden_size;
  const double fwd_passes = 1 + recompute_share;  // forward passes of a layer per micro-batch
  // TP with sequence parallelism: an all-gather and a reduce-scatter of the micro-batch's
  // activations (rows x s / CP tokens x h x 2 B) around attention and around the MLP, forward, and
  // the same in backward; not overlapped (Korthikanti et al. 2022, arXiv:2205.05198, sec. 4.2.2).
  double tp_bytes = rows_per_mb * s / cp * h * kBf16Bytes;
  double tp_s = stage_layers * 2 * 2 * (fwd_passes + 1) *
                ring_collective_s(tp_bytes, tp, link_bytes_per_s(cluster, tp, p.communication_efficiency));
  // CP: ring exchange of K and V (Megatron-Core/TE's p2p context parallelism): CP - 1 hops of one
  // rank's K/V chunk forward, K/V plus their gradients backward; overlapped with core attention,
  // only the excess is exposed.
  double kv_bytes = rows_per_mb * s / cp * 2 * model.kv_heads * model.head_dim * kBf16Bytes / tp;
  double cp_link = link_bytes_per_s(cluster, tp * cp, p.communication_efficiency);
  double attn_layers_on_stage = d(model.attention_layers) * layer_share;
  double cp_raw_s = cp > 1 && cp_link > 0 ? attn_layers_on_stage * (fwd_passes + 2) * (cp - 1) * kv_bytes / cp_link : 0;
  double attention_core_s = attention_flop_fwd * (3 + std::max(recompute_share, selective_share)) /
                            (bf16_peak * p.attention_efficiency);
  double cp_s = std::max(0.0, cp_raw_s - attention_core_s);
  // EP: all-to-all dispatch and combine of the top-k copies of the GPU's tokens (rows x s /
  // (TP x CP) tokens x h x 2 B x k), of which (EP - 1) / EP leave the GPU, in every forward pass
  // and again in backward. The flex (DeepEP) dispatcher scales it by flex_dispatcher_factor.
  // Overlap: the shared expert can run while tokens are in flight, so its compute hides part of it.
  double ep_s = 0, shared_hidden_s = 0;
  const double moe_layers_on_stage = d(model.moe_layers) * layer_share;
  if (ep > 1 && model.is_moe()) {
    double a2a_bytes = tokens_per_gpu * h * kBf16Bytes * model.experts_per_token * (ep - 1.0) / ep;
    double ep_link = link_bytes_per_s(cluster, ep * etp, p.communication_efficiency);
    double factor = layout.dispatcher == "flex" ? p.flex_dispatcher_factor : 1.0;
    double raw = ep_link > 0 ? moe_layers_on_stage * 2 * (fwd_passes + 1) * a2a_bytes / ep_link * factor : 0;
    double shared_s = moe_layers_on_stage * tokens_per_gpu * 2 * d(model.shared_expert_params) *
                      (3 + recompute_share) / (linear_peak * p.matmul_efficiency);
    shared_hidden_s = std::min(raw, shared_s);
    ep_s = raw - shared_hidden_s;
  }
  // ETP: experts split over ETP ranks (expert tensor parallelism) gather the routed copies of the
  // group's tokens before the expert MLP and reduce-scatter its output, forward and backward, as TP
  // does around a dense MLP (Megatron-Core's MoE layer with expert_tensor_parallel_size > 1);
  // not overlapped.
  double etp_s = 0, etp_bytes = 0;
  if (etp > 1 && model.is_moe()) {
    etp_bytes = tokens_per_gpu * etp * model.experts_per_token * h * kBf16Bytes;
    etp_s = moe_layers_on_stage * 2 * (fwd_passes + 1) *
            ring_collective_s(etp_bytes, etp, link_bytes_per_s(cluster, etp, p.communication_efficiency));
  }
  // PP: each micro-batch's activations (rows x s / (TP x CP) tokens x h x 2 B) go forward and
  // their gradients back across the stage's boundaries, once per virtual chunk; point-to-point,
  // exposed.
  double pp_s = 0;
  if (pp > 1) {
    double pp_link = link_bytes_per_s(cluster, world, p.communication_efficiency);
    pp_s = pp_link > 0 ? 2.0 * vpp * tokens_per_gpu * h * kBf16Bytes / pp_link : 0;
  }
  // Fixed costs: per layer per pass (forward, backward, recomputed forward) and per recompute unit.
  double layer_overhead_s = p.layer_overhead_s * stage_layers * (2 + recompute_share);
  double recompute_overhead_s = p.recompute_unit_overhead_s * recompute_units;

  const double mb_s =
      matmul_s + core_s + tp_s + cp_s + ep_s + etp_s + pp_s + layer_overhead_s + recompute_overhead_s;
  // Pipeline bubble of (interleaved) 1F1B: (PP - 1) / VPP micro-batch times (Narayanan et al.
  // 2021, sec. 2.2), i.e. (PP - 1) / (VPP x m) of the pipeline's busy time.
  const double bubble_s = (pp - 1.0) / vpp * mb_s;

  // DP with the distributed optimizer: reduce-scatter of FP32 gradients and all-gather of BF16
  // parameters of the GPU's shard of the stage's weights: dense weights over DP, expert weights
  // over expert DP = W / (PP x EP x ETP). Megatron overlaps the gradient reduce-scatter with the
  // last micro-batch's backward and the parameter all-gather with the next step's first forward;
  // the last bucket (about one layer's worth) cannot overlap.
  double dense_params = (model.dense_params_per_layer() * stage_layers +
                         (has_output ? d(model.output_params) : 0) +
                         (worst && worst->has_embedding ? d(model.embedding_params) : 0)) / tp;
  double expert_params = model.expert_params_per_layer() * stage_layers / (ep * etp);
  int expert_dp = std::max(world / (pp * ep * etp), 1);
  double dp_span_dense = d(tp) * cp * dp, dp_span_expert = d(ep) * etp * expert_dp;
  double rs_s = ring_collective_s(dense_params * kFp32Bytes, dp,
                                  link_bytes_per_s(cluster, static_cast<int>(dp_span_dense), p.communication_efficiency)) +
                ring_collective_s(expert_params * kFp32Bytes, expert_dp,
                                  link_bytes_per_s(cluster, static_cast<int>(dp_span_expert), p.communication_efficiency));
  double ag_s = rs_s * kBf16Bytes / kFp32Bytes;
  double backward_s = mb_s * 2.0 / (3 + recompute_share);
  double forward_s = mb_s / (3 + recompute_share);
  double tail_s = stage_layers > 0 ? (rs_s + ag_s) / stage_layers : 0;
  double dp_s = std::max(0.0, rs_s - backward_s) + std::max(0.0, ag_s - forward_s) + tail_s;

  e.step_time_s = m * mb_s + bubble_s + dp_s;
  double tokens = d(workload.global_batch) * s;
  e.tokens_per_s_per_gpu = e.step_time_s > 0 ? tokens / (e.step_time_s * world) : 0;
  e.mfu = model_flops_utilization(model.active_params, e.tokens_per_s_per_gpu, bf16_peak);
  e.usd_per_million_tokens = e.tokens_per_s_per_gpu > 0
                                 ? usd_per_million_tokens(cluster.gpu.usd_per_gpu_hour, e.tokens_per_s_per_gpu)
                                 : 0;

  const std::string stage_text = fmt::format("stage {} ({} layers{}), {:.0f} micro-batches of {:.0f} tokens/GPU",
                                             worst ? worst->index : 0, stage_layers,
                                             has_output ? " + output layer" : "", m, tokens_per_gpu);
  e.terms = {
      {"matmul compute", m * matmul_s,
       fmt::format("{:.3g} FLOP/micro-batch at {:.3g} FLOP/s x {:.3f}; {}; recompute {}",
                   matmul_flop, linear_peak, p.matmul_efficiency, stage_text, recompute_text)},
      {"attention compute", m * core_s,
       fmt::format("softmax {:.3g} + Gated DeltaNet {:.3g} FLOP/micro-batch (fwd) at {:.3g} FLOP/s x {:.3f}",
                   attention_flop_fwd, gdn_flop_fwd, bf16_peak, p.attention_efficiency)},
      {"TP communication", m * tp_s,
       fmt::format("TP {}: all-gather + reduce-scatter of {:.3g} B, 2 per layer per pass, {}", tp, tp_bytes,
                   link_name(cluster, tp))},
      {"CP communication", m * cp_s,
       fmt::format("CP {}: K/V ring {:.3g} s per micro-batch, {:.3g} s hidden behind attention", cp, cp_raw_s,
                   cp_raw_s - cp_s)},
      {"EP communication", m * ep_s,
       fmt::format("EP {}: all-to-all over {}, dispatcher {}, {:.3g} s per micro-batch hidden behind shared "
                   "experts",
                   ep, link_name(cluster, ep * etp), layout.dispatcher.empty() ? "alltoall" : layout.dispatcher,
                   shared_hidden_s)},
      {"ETP communication", m * etp_s,
       fmt::format("ETP {}: all-gather + reduce-scatter of {:.3g} B of routed tokens per MoE layer per pass, {}", etp,
                   etp_bytes, link_name(cluster, etp))},
      {"PP communication", m * pp_s, fmt::format("PP {}: point-to-point over {}", pp, link_name(cluster, world))},
      {"layer overhead", m * layer_overhead_s,
       fmt::format("{:.3g} s x {} layers x passes per micro-batch", p.layer_overhead_s, stage_layers)},
      {"recompute overhead", m * recompute_overhead_s,
       fmt::format("{:.3g} s x {} units per micro-batch", p.recompute_unit_overhead_s, recompute_units)},
      {"pipeline bubble", bubble_s, fmt::format("(PP - 1) / VPP = {} / {} micro-batch times", pp - 1, vpp)},
      {"DP communication", dp_s,
       fmt::format("DP {} / expert DP {}: reduce-scatter {:.3g} s + all-gather {:.3g} s, exposed beyond one "
                   "micro-batch's backward/forward, plus a one-layer tail",
                   dp, expert_dp, rs_s, ag_s)},
  };
  return e;
}

}  // namespace openrecipes
