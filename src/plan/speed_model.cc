#include "plan/speed_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "figures/figures.h"
#include "layout/layout_rules.h"
#include "layout/pipeline_stages.h"

namespace openrecipes {
namespace {

constexpr double kBf16Bytes = 2;  // activations, parameters gathered, a2a payloads
constexpr double kFp32Bytes =
    4;  // gradients reduced in FP32 (Megatron-Bridge's grad_reduce_in_fp32)
// Gated DeltaNet chunk length: the chunked kernels of flash-linear-attention
// (chunk_gated_delta_rule) use 64-token chunks; Yang et al. 2024 (arXiv:2412.06464), sec. 3.
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
                   d(m.moe_layers) * (m.experts_per_token * d(m.expert_params) +
                                      d(m.shared_expert_params) + d(m.router_params));
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
  f.attention_core_flop =
      per_context * (full_layers * full_context + m.sliding_window_layers * sliding_context);
  // Gated DeltaNet, chunked delta rule with chunk C (Yang et al. 2024, arXiv:2412.06464, sec. 3.2;
  // our count, an assumption): per value head and token, the state update and output read
  // (S^T k, S q against the dk x dv state: 4 dk dv) plus the intra-chunk attention-like products
  // over the C tokens of its chunk (2 C (dk + dv)).
  double dk = m.linear_key_head_dim, dv = m.linear_value_head_dim;
  f.linear_attention_core_flop = d(m.linear_attention_layers) * m.linear_value_heads *
                                 (4 * dk * dv + 2 * kDeltaNetChunkTokens * (dk + dv));
  return f;
}

namespace {

// The layout's group sizes (each at least 1) and the shape of one step's micro-batches.
struct StepShape {
  int tp = 1, pp = 1, cp = 1, vpp = 1, ep = 1, etp = 1;
  int world = 1;              // W
  int dp = 1;                 // implied DP
  int rows_per_mb = 1;        // rows per micro-batch
  int layers = 1;             // the model's decoder layers
  double s = 0;               // tokens per row
  double m = 1;               // micro-batches per DP rank per step
  double tokens_per_gpu = 0;  // one micro-batch's tokens on one GPU: rows x s / (TP x CP)
};

// Computes the group sizes, micro-batches per DP rank and tokens per GPU of `layout`.
StepShape step_shape(const ModelShape& model, const ClusterShape& cluster,
                     const PlanWorkload& workload, const Layout& layout) {
  StepShape sh;
  sh.tp = std::max(layout.tp, 1), sh.pp = std::max(layout.pp, 1), sh.cp = std::max(layout.cp, 1);
  sh.vpp = std::max(layout.vpp, 1), sh.ep = std::max(layout.ep, 1),
  sh.etp = std::max(layout.etp, 1);
  sh.world = std::max(cluster.gpus, 1);
  sh.dp = std::max(implied_data_parallel(cluster, layout), 1);
  sh.rows_per_mb = std::max(layout.rows_per_microbatch, 1);
  sh.s = d(workload.row_tokens);
  // Micro-batches per DP rank per step.
  sh.m = std::max(1.0, d(workload.global_batch) / (sh.dp * sh.rows_per_mb));
  sh.layers = std::max(model.layers, 1);
  // The stage's GPUs (TP x CP x DP of them) share its tokens evenly: TP and CP split each row's
  // dense work, and EP spreads the routed experts' tokens over the stage (balanced routing), so one
  // GPU does rows x s / (TP x CP) tokens' worth of every layer of the stage.
  sh.tokens_per_gpu = sh.rows_per_mb * sh.s / (sh.tp * sh.cp);
  return sh;
}

// The pipeline stage that does the most FLOPs per micro-batch.
struct LoadedStage {
  int index = 0;
  int layers = 0;              // decoder layers on it
  bool has_output = true;      // holds the output layer
  bool has_embedding = false;  // holds the input embedding
  double layer_share = 0;      // its layers / the model's layers
};

// Finds the most loaded stage of `layout` (the whole model when there are no stages).
LoadedStage most_loaded_stage(const ModelShape& model, const Layout& layout, const ForwardFlops& f,
                              const StepShape& sh) {
  std::vector<PipelineStage> stages = pipeline_stages(model, layout, static_cast<int>(sh.m));
  const PipelineStage* worst = nullptr;
  double worst_flop = -1;
  for (const PipelineStage& st : stages) {
    double flop = st.layers * f.total() / sh.layers + (st.has_output ? f.output_flop : 0);
    if (flop > worst_flop) worst_flop = flop, worst = &st;
  }
  LoadedStage stage;
  stage.layers = sh.layers;
  if (worst) {
    stage.index = worst->index;
    stage.layers = worst->layers;
    stage.has_output = worst->has_output;
    stage.has_embedding = worst->has_embedding;
  }
  stage.layer_share = static_cast<double>(stage.layers) / sh.layers;
  return stage;
}

// What recompute adds on the stage.
struct RecomputeCost {
  double recomputed_layers = 0;  // layers whose forward runs twice
  double units = 0;              // checkpointed units, each a fixed overhead
  double selective_share = 0;    // 1 when core attention alone is recomputed
  double share = 0;              // recomputed layers / stage layers
  std::string text = "none";
};

// Computes the recomputed layers and units of `layout` on a stage of `stage_layers` layers.
// Recompute (Megatron-LM --recompute-granularity/-method/-num-layers): full recomputes the
// forward of whole layers, checkpointed in units; uniform splits every virtual chunk's layers into
// units of num_layers, block checkpoints the first num_layers layers of each chunk one by one.
// Selective recomputes core (softmax) attention only.
RecomputeCost recompute_cost(const Layout& layout, int stage_layers, int vpp) {
  RecomputeCost rc;
  if (layout.recompute) {
    const Recompute& r = *layout.recompute;
    int k = std::max(r.num_layers.value_or(1), 1);
    int chunk_layers = std::max(stage_layers / vpp, 1);
    if (r.granularity == "full") {
      if (r.method == "block") {
        rc.recomputed_layers = d(std::min(k, chunk_layers)) * vpp;
        rc.units = rc.recomputed_layers;
      } else {
        rc.recomputed_layers = stage_layers;
        rc.units = std::ceil(static_cast<double>(chunk_layers) / k) * vpp;
      }
      rc.text = fmt::format("full {} of {} layers in {} units", rc.recomputed_layers, stage_layers,
                            rc.units);
    } else if (r.granularity == "selective") {
      rc.selective_share = 1;
      rc.text = "selective (core attention)";
    }
  }
  rc.share = stage_layers > 0 ? rc.recomputed_layers / stage_layers : 0;
  return rc;
}

// What every term of one micro-batch needs: the inputs, the layout's sizes, the most loaded stage
// and its recompute.
struct Microbatch {
  const ModelShape& model;
  const ClusterShape& cluster;
  const Layout& layout;
  const SpeedParameters& p;
  StepShape sh;
  LoadedStage stage;
  RecomputeCost recompute;
  double fwd_passes() const { return 1 + recompute.share; }  // forward passes of a layer
};

// One micro-batch's compute on one GPU of the stage: FLOPs and seconds.
struct ComputeCost {
  double matmul_flop_fwd = 0, output_flop_fwd = 0, attention_flop_fwd = 0, gdn_flop_fwd = 0;
  double matmul_flop = 0, core_flop = 0;  // forward + backward + recompute
  double bf16_peak = 0, linear_peak = 0;  // FLOP/s
  double matmul_s = 0, core_s = 0;
  double attention_core_s = 0;  // softmax attention's part of core_s, which CP overlaps
};

// Computes the micro-batch's FLOPs and their seconds at the achieved rates.
ComputeCost compute_cost(const Microbatch& mb, const ForwardFlops& f,
                         const PlanWorkload& workload) {
  const double tokens_per_gpu = mb.sh.tokens_per_gpu, layer_share = mb.stage.layer_share;
  const double recompute_share = mb.recompute.share, selective_share = mb.recompute.selective_share;
  const SpeedParameters& p = mb.p;
  ComputeCost c;
  // Forward + backward (2 x forward, Narayanan et al. 2021) + recompute, per micro-batch per GPU.
  c.matmul_flop_fwd = tokens_per_gpu * f.layer_matmul_flop * layer_share;
  c.output_flop_fwd = mb.stage.has_output ? tokens_per_gpu * f.output_flop : 0;
  c.attention_flop_fwd = tokens_per_gpu * f.attention_core_flop * layer_share;
  c.gdn_flop_fwd = tokens_per_gpu * f.linear_attention_core_flop * layer_share;
  c.matmul_flop = c.matmul_flop_fwd * (3 + recompute_share) + 3 * c.output_flop_fwd;
  c.core_flop = c.attention_flop_fwd * (3 + std::max(recompute_share, selective_share)) +
                c.gdn_flop_fwd * (3 + recompute_share);

  // Rates: FP8 runs the decoder's linear layers at the FP8 peak; the output layer and the attention
  // kernels stay in BF16 (Transformer Engine's FP8 recipes cover the layers' linear modules only).
  const Gpu& gpu = mb.cluster.gpu;
  c.bf16_peak = gpu.peak_bf16_dense_flop_per_s;
  c.linear_peak = workload.precision == Precision::kFp8 && gpu.peak_fp8_dense_flop_per_s > 0
                      ? gpu.peak_fp8_dense_flop_per_s
                      : c.bf16_peak;
  c.matmul_s = (c.matmul_flop_fwd * (3 + recompute_share)) / (c.linear_peak * p.matmul_efficiency) +
               3 * c.output_flop_fwd / (c.bf16_peak * p.matmul_efficiency);
  c.core_s = c.core_flop / (c.bf16_peak * p.attention_efficiency);
  c.attention_core_s = c.attention_flop_fwd * (3 + std::max(recompute_share, selective_share)) /
                       (c.bf16_peak * p.attention_efficiency);
  return c;
}

// Communication per micro-batch. Ranks are ordered TP, CP, DP (EP within it), PP (Megatron-Core's
// default order tp-cp-ep-dp-pp), so a group of stride x size consecutive ranks uses NVLink when
// that span fits in a node.

// A gather/scatter collective around a layer: its buffer and its exposed seconds.
struct GatherScatterCost {
  double bytes = 0;
  double s = 0;
};

// A transfer partly hidden behind compute: seconds in all, hidden and exposed.
struct OverlappedCost {
  double raw_s = 0;
  double hidden_s = 0;
  double s = 0;
};

// Computes TP's all-gather and reduce-scatter seconds per micro-batch.
// TP with sequence parallelism: an all-gather and a reduce-scatter of the micro-batch's
// activations (rows x s / CP tokens x h x 2 B) around attention and around the MLP, forward, and
// the same in backward; not overlapped (Korthikanti et al. 2022, arXiv:2205.05198, sec. 4.2.2).
GatherScatterCost tp_communication(const Microbatch& mb) {
  const StepShape& sh = mb.sh;
  const double h = mb.model.hidden_size;
  GatherScatterCost c;
  c.bytes = sh.rows_per_mb * sh.s / sh.cp * h * kBf16Bytes;
  c.s = mb.stage.layers * 2 * 2 * (mb.fwd_passes() + 1) *
        ring_collective_s(c.bytes, sh.tp,
                          link_bytes_per_s(mb.cluster, sh.tp, mb.p.communication_efficiency));
  return c;
}

// Computes CP's K/V ring seconds per micro-batch and the part core attention hides.
// CP: ring exchange of K and V (Megatron-Core/TE's p2p context parallelism): CP - 1 hops of one
// rank's K/V chunk forward, K/V plus their gradients backward; overlapped with core attention,
// only the excess is exposed.
OverlappedCost cp_communication(const Microbatch& mb, const ComputeCost& compute) {
  const StepShape& sh = mb.sh;
  const int tp = sh.tp, cp = sh.cp;
  double kv_bytes =
      sh.rows_per_mb * sh.s / cp * 2 * mb.model.kv_heads * mb.model.head_dim * kBf16Bytes / tp;
  double cp_link = link_bytes_per_s(mb.cluster, tp * cp, mb.p.communication_efficiency);
  double attn_layers_on_stage = d(mb.model.attention_layers) * mb.stage.layer_share;
  OverlappedCost c;
  c.raw_s = cp > 1 && cp_link > 0
                ? attn_layers_on_stage * (mb.fwd_passes() + 2) * (cp - 1) * kv_bytes / cp_link
                : 0;
  c.s = std::max(0.0, c.raw_s - compute.attention_core_s);
  c.hidden_s = c.raw_s - c.s;
  return c;
}

// MoE layers on the stage (fractional for an uneven share).
double moe_layers_on_stage(const Microbatch& mb) {
  return d(mb.model.moe_layers) * mb.stage.layer_share;
}

// Computes EP's all-to-all seconds per micro-batch and the part the shared expert hides.
// EP: all-to-all dispatch and combine of the top-k copies of the GPU's tokens (rows x s /
// (TP x CP) tokens x h x 2 B x k), of which (EP - 1) / EP leave the GPU, in every forward pass
// and again in backward. The flex (DeepEP) dispatcher scales it by flex_dispatcher_factor.
// Overlap: the shared expert can run while tokens are in flight, so its compute hides part of it.
OverlappedCost ep_communication(const Microbatch& mb, const ComputeCost& compute) {
  const int ep = mb.sh.ep, etp = mb.sh.etp;
  OverlappedCost c;
  if (ep > 1 && mb.model.is_moe()) {
    const double h = mb.model.hidden_size;
    const double tokens_per_gpu = mb.sh.tokens_per_gpu, moe_layers = moe_layers_on_stage(mb);
    double a2a_bytes =
        tokens_per_gpu * h * kBf16Bytes * mb.model.experts_per_token * (ep - 1.0) / ep;
    double ep_link = link_bytes_per_s(mb.cluster, ep * etp, mb.p.communication_efficiency);
    double factor = mb.layout.dispatcher == "flex" ? mb.p.flex_dispatcher_factor : 1.0;
    c.raw_s =
        ep_link > 0 ? moe_layers * 2 * (mb.fwd_passes() + 1) * a2a_bytes / ep_link * factor : 0;
    double shared_s = moe_layers * tokens_per_gpu * 2 * d(mb.model.shared_expert_params) *
                      (3 + mb.recompute.share) / (compute.linear_peak * mb.p.matmul_efficiency);
    c.hidden_s = std::min(c.raw_s, shared_s);
    c.s = c.raw_s - c.hidden_s;
  }
  return c;
}

// Computes ETP's all-gather and reduce-scatter seconds per micro-batch.
// ETP: experts split over ETP ranks (expert tensor parallelism) gather the routed copies of the
// group's tokens before the expert MLP and reduce-scatter its output, forward and backward, as TP
// does around a dense MLP (Megatron-Core's MoE layer with expert_tensor_parallel_size > 1);
// not overlapped.
GatherScatterCost etp_communication(const Microbatch& mb) {
  const int etp = mb.sh.etp;
  GatherScatterCost c;
  if (etp > 1 && mb.model.is_moe()) {
    const double h = mb.model.hidden_size;
    c.bytes = mb.sh.tokens_per_gpu * etp * mb.model.experts_per_token * h * kBf16Bytes;
    c.s = moe_layers_on_stage(mb) * 2 * (mb.fwd_passes() + 1) *
          ring_collective_s(c.bytes, etp,
                            link_bytes_per_s(mb.cluster, etp, mb.p.communication_efficiency));
  }
  return c;
}

// Computes PP's point-to-point seconds per micro-batch.
// PP: each micro-batch's activations (rows x s / (TP x CP) tokens x h x 2 B) go forward and
// their gradients back across the stage's boundaries, once per virtual chunk; point-to-point,
// exposed.
double pp_communication_s(const Microbatch& mb) {
  if (mb.sh.pp <= 1) return 0;
  const double h = mb.model.hidden_size;
  double pp_link = link_bytes_per_s(mb.cluster, mb.sh.world, mb.p.communication_efficiency);
  return pp_link > 0 ? 2.0 * mb.sh.vpp * mb.sh.tokens_per_gpu * h * kBf16Bytes / pp_link : 0;
}

// One micro-batch's seconds on one GPU of the stage, by term, after overlap.
struct MicrobatchTime {
  ComputeCost compute;
  GatherScatterCost tp, etp;
  OverlappedCost cp, ep;
  double pp_s = 0;
  double layer_overhead_s = 0, recompute_overhead_s = 0;
  double total_s() const {
    return compute.matmul_s + compute.core_s + tp.s + cp.s + ep.s + etp.s + pp_s +
           layer_overhead_s + recompute_overhead_s;
  }
};

// Computes every term of one micro-batch: compute, communication per parallelism, fixed costs.
MicrobatchTime microbatch_time(const Microbatch& mb, const ForwardFlops& f,
                               const PlanWorkload& workload) {
  MicrobatchTime t;
  t.compute = compute_cost(mb, f, workload);
  t.tp = tp_communication(mb);
  t.cp = cp_communication(mb, t.compute);
  t.ep = ep_communication(mb, t.compute);
  t.etp = etp_communication(mb);
  t.pp_s = pp_communication_s(mb);
  // Fixed costs: per layer per pass (forward, backward, recomputed forward) and per recompute unit.
  t.layer_overhead_s = mb.p.layer_overhead_s * mb.stage.layers * (2 + mb.recompute.share);
  t.recompute_overhead_s = mb.p.recompute_unit_overhead_s * mb.recompute.units;
  return t;
}

// DP's exposed communication per step.
struct DpCost {
  int expert_dp = 1;
  double rs_s = 0, ag_s = 0;  // gradient reduce-scatter and parameter all-gather, in all
  double s = 0;               // exposed
};

// Computes the gradient reduce-scatter and parameter all-gather of one step and what is exposed
// beyond one micro-batch of `mb_s` seconds.
// DP with the distributed optimizer: reduce-scatter of FP32 gradients and all-gather of BF16
// parameters of the GPU's shard of the stage's weights: dense weights over DP, expert weights
// over expert DP = W / (PP x EP x ETP). Megatron overlaps the gradient reduce-scatter with the
// last micro-batch's backward and the parameter all-gather with the next step's first forward;
// the last bucket (about one layer's worth) cannot overlap.
DpCost dp_communication(const Microbatch& mb, double mb_s) {
  const StepShape& sh = mb.sh;
  const ModelShape& model = mb.model;
  const int tp = sh.tp, cp = sh.cp, dp = sh.dp, ep = sh.ep, etp = sh.etp,
            stage_layers = mb.stage.layers;
  const double recompute_share = mb.recompute.share, efficiency = mb.p.communication_efficiency;
  double dense_params = (model.dense_params_per_layer() * stage_layers +
                         (mb.stage.has_output ? d(model.output_params) : 0) +
                         (mb.stage.has_embedding ? d(model.embedding_params) : 0)) /
                        tp;
  double expert_params = model.expert_params_per_layer() * stage_layers / (ep * etp);
  DpCost c;
  c.expert_dp = std::max(sh.world / (sh.pp * ep * etp), 1);
  double dp_span_dense = d(tp) * cp * dp, dp_span_expert = d(ep) * etp * c.expert_dp;
  c.rs_s =
      ring_collective_s(dense_params * kFp32Bytes, dp,
                        link_bytes_per_s(mb.cluster, static_cast<int>(dp_span_dense), efficiency)) +
      ring_collective_s(expert_params * kFp32Bytes, c.expert_dp,
                        link_bytes_per_s(mb.cluster, static_cast<int>(dp_span_expert), efficiency));
  c.ag_s = c.rs_s * kBf16Bytes / kFp32Bytes;
  double backward_s = mb_s * 2.0 / (3 + recompute_share);
  double forward_s = mb_s / (3 + recompute_share);
  double tail_s = stage_layers > 0 ? (c.rs_s + c.ag_s) / stage_layers : 0;
  c.s = std::max(0.0, c.rs_s - backward_s) + std::max(0.0, c.ag_s - forward_s) + tail_s;
  return c;
}

// Builds the explained terms of the step time (each micro-batch term times m).
std::vector<StepTimeTerm> step_time_terms(const Microbatch& mb, const MicrobatchTime& t,
                                          double bubble_s, const DpCost& dp) {
  const StepShape& sh = mb.sh;
  const ClusterShape& cluster = mb.cluster;
  const SpeedParameters& p = mb.p;
  const ComputeCost& c = t.compute;
  const double m = sh.m;
  const int tp = sh.tp, cp = sh.cp, ep = sh.ep, etp = sh.etp, pp = sh.pp;
  const std::string stage_text = fmt::format(
      "stage {} ({} layers{}), {:.0f} micro-batches of {:.0f} tokens/GPU", mb.stage.index,
      mb.stage.layers, mb.stage.has_output ? " + output layer" : "", m, sh.tokens_per_gpu);
  return {
      {"matmul compute", m * c.matmul_s,
       fmt::format("{:.3g} FLOP/micro-batch at {:.3g} FLOP/s x {:.3f}; {}; recompute {}",
                   c.matmul_flop, c.linear_peak, p.matmul_efficiency, stage_text,
                   mb.recompute.text)},
      {"attention compute", m * c.core_s,
       fmt::format("softmax {:.3g} + Gated DeltaNet {:.3g} FLOP/micro-batch (fwd) at {:.3g} FLOP/s "
                   "x {:.3f}",
                   c.attention_flop_fwd, c.gdn_flop_fwd, c.bf16_peak, p.attention_efficiency)},
      {"TP communication", m * t.tp.s,
       fmt::format("TP {}: all-gather + reduce-scatter of {:.3g} B, 2 per layer per pass, {}", tp,
                   t.tp.bytes, link_name(cluster, tp))},
      {"CP communication", m * t.cp.s,
       fmt::format("CP {}: K/V ring {:.3g} s per micro-batch, {:.3g} s hidden behind attention", cp,
                   t.cp.raw_s, t.cp.hidden_s)},
      {"EP communication", m * t.ep.s,
       fmt::format("EP {}: all-to-all over {}, dispatcher {}, {:.3g} s per micro-batch hidden "
                   "behind shared "
                   "experts",
                   ep, link_name(cluster, ep * etp),
                   mb.layout.dispatcher.empty() ? "alltoall" : mb.layout.dispatcher,
                   t.ep.hidden_s)},
      {"ETP communication", m * t.etp.s,
       fmt::format("ETP {}: all-gather + reduce-scatter of {:.3g} B of routed tokens per MoE layer "
                   "per pass, {}",
                   etp, t.etp.bytes, link_name(cluster, etp))},
      {"PP communication", m * t.pp_s,
       fmt::format("PP {}: point-to-point over {}", pp, link_name(cluster, sh.world))},
      {"layer overhead", m * t.layer_overhead_s,
       fmt::format("{:.3g} s x {} layers x passes per micro-batch", p.layer_overhead_s,
                   mb.stage.layers)},
      {"recompute overhead", m * t.recompute_overhead_s,
       fmt::format("{:.3g} s x {} units per micro-batch", p.recompute_unit_overhead_s,
                   mb.recompute.units)},
      {"pipeline bubble", bubble_s,
       fmt::format("(PP - 1) / VPP = {} / {} micro-batch times", pp - 1, sh.vpp)},
      {"DP communication", dp.s,
       fmt::format("DP {} / expert DP {}: reduce-scatter {:.3g} s + all-gather {:.3g} s, exposed "
                   "beyond one "
                   "micro-batch's backward/forward, plus a one-layer tail",
                   sh.dp, dp.expert_dp, dp.rs_s, dp.ag_s)},
  };
}

}  // namespace

SpeedEstimate estimate_speed(const ModelShape& model, const ClusterShape& cluster,
                             const PlanWorkload& workload, const Layout& layout,
                             const SpeedParameters& p) {
  // FLOPs per micro-batch on one GPU of the most loaded stage, with its recompute.
  const StepShape sh = step_shape(model, cluster, workload, layout);
  const ForwardFlops f = forward_flops_per_token(model, workload.row_tokens);
  const LoadedStage stage = most_loaded_stage(model, layout, f, sh);
  const Microbatch mb{
      model, cluster, layout, p, sh, stage, recompute_cost(layout, stage.layers, sh.vpp)};
  const MicrobatchTime t = microbatch_time(mb, f, workload);
  const double mb_s = t.total_s();
  // Pipeline bubble of (interleaved) 1F1B: (PP - 1) / VPP micro-batch times (Narayanan et al.
  // 2021, sec. 2.2), i.e. (PP - 1) / (VPP x m) of the pipeline's busy time.
  const double bubble_s = (sh.pp - 1.0) / sh.vpp * mb_s;
  const DpCost dp = dp_communication(mb, mb_s);

  SpeedEstimate e;
  e.flop_per_step_per_gpu = sh.m * (t.compute.matmul_flop + t.compute.core_flop);
  e.step_time_s = sh.m * mb_s + bubble_s + dp.s;
  double tokens = d(workload.global_batch) * sh.s;
  e.tokens_per_s_per_gpu = e.step_time_s > 0 ? tokens / (e.step_time_s * sh.world) : 0;
  e.mfu = model_flops_utilization(model.active_params, e.tokens_per_s_per_gpu, t.compute.bf16_peak);
  e.usd_per_million_tokens =
      e.tokens_per_s_per_gpu > 0
          ? usd_per_million_tokens(cluster.gpu.usd_per_gpu_hour, e.tokens_per_s_per_gpu)
          : 0;
  e.terms = step_time_terms(mb, t, bubble_s, dp);
  return e;
}

}  // namespace openrecipes
