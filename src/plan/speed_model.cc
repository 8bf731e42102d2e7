#include "plan/speed_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "figures/figures.h"
#include "layout/layout_rules.h"
#include "layout/pipeline_stages.h"
#include "plan/collective_time.h"
#include "plan/dtype_bytes.h"
#include "plan/layer_compute.h"
#include "plan/layer_parts.h"

namespace openrecipes {
namespace {

// Distributed Adam step per parameter of the rank's shard: read the FP32 gradient, master weight
// and two moments (16 B), write the three back (12 B) and the BF16 weight (2 B).
constexpr double kOptimizerStepBytesPerParam = 30;

double as_double(std::int64_t v) { return static_cast<double>(v); }

// HybridEP permutes the routed copies inside its dispatch and combine (LayerCompute's
// StageWork::permute_in_dispatch): the flex dispatcher with that backend, and EP > 1.
bool hybridep_permutes(const Layout& layout, const PlanWorkload& workload, int ep) {
  return ep > 1 && workload.hybridep && layout.dispatcher == "flex";
}

}  // namespace

const std::vector<SpeedParameterBound>& speed_parameter_bounds() {
  static const std::vector<SpeedParameterBound> bounds = {
      // No tuned GEMM library reaches its dense peak: the bounds keep the fitted rates within what
      // large GEMMs achieve (about 0.7-0.85 of peak in BF16, less in FP8 where the casts and
      // scaling sit beside the mainloop). The BF16 floor is 0.6: the only BF16 rows the fit has
      // are MoE runs (gpt-oss-120b, DeepSeek-V3, the catalog's), whose slowness would otherwise
      // set every BF16 GEMM, dense models' included (docs/planner.md, "Free parameters").
      {"gemm_efficiency", &SpeedParameters::gemm_efficiency, 0.6, 0.9, true,
       "achieved / peak FLOP/s of a large BF16 GEMM"},
      {"low_precision_gemm_efficiency", &SpeedParameters::low_precision_gemm_efficiency, 0.4, 0.85,
       true, "achieved / peak FLOP/s of a large FP8, MXFP8 or NVFP4 GEMM"},
      // The routed experts' grouped GEMM (Transformer Engine's GroupedLinear: one GEMM per local
      // expert, each of its own M) reaches less than one dense GEMM of the same total shape.
      {"grouped_gemm_efficiency", &SpeedParameters::grouped_gemm_efficiency, 0.3, 1.0, true,
       "achieved / dense FLOP/s of the routed experts' grouped GEMM"},
      {"attention_efficiency", &SpeedParameters::attention_efficiency, 0.2, 0.9, true,
       "achieved / peak FLOP/s of attention's matmuls"},
      {"hbm_efficiency", &SpeedParameters::hbm_efficiency, 0.4, 0.95, true,
       "achieved / peak HBM bandwidth of elementwise kernels"},
      {"communication_efficiency", &SpeedParameters::communication_efficiency, 0.3, 0.95, true,
       "achieved / link bandwidth of collectives"},
      {"collective_latency_s", &SpeedParameters::collective_latency_s, 2e-6, 1e-4, true,
       "fixed seconds per collective call"},
      {"kernel_overhead_s", &SpeedParameters::kernel_overhead_s, 1e-6, 4e-5, true,
       "fixed seconds per kernel"},
      {"routing_imbalance", &SpeedParameters::routing_imbalance, 1.0, 3.0, true,
       "busiest EP rank's routed tokens / mean, natural routing"},
      {"recompute_unit_overhead_s", &SpeedParameters::recompute_unit_overhead_s, 1e-6, 1e-2, true,
       "fixed seconds per full-recompute unit per micro-batch"},
      // HybridEP drives NVLink domains of up to 72 GPUs through TMA, a gain no byte count
      // gives; DeepEP's, fewer network copies, is counted (deepep_network_share).
      {"hybridep_dispatcher_factor", &SpeedParameters::hybridep_dispatcher_factor, 0.3, 1.5, true,
       "flex (HybridEP) all-to-all time / alltoall's"},
      // Sustained clocks below the datasheet's boost clock: at most 1 (the datasheet), at least
      // 0.6 (a GPU that throttled further would be broken, not power-capped).
      {"sustained_clock_b200", &SpeedParameters::sustained_clock_b200, 0.6, 1.0, true,
       "B200 sustained tensor throughput / datasheet peak, relative to Hopper's"},
      {"sustained_clock_b300", &SpeedParameters::sustained_clock_b300, 0.6, 1.0, true,
       "B300 sustained tensor throughput / datasheet peak, relative to Hopper's"},
      {"sustained_clock_gb200", &SpeedParameters::sustained_clock_gb200, 0.6, 1.0, true,
       "GB200 sustained tensor throughput / datasheet peak, relative to Hopper's"},
      {"sustained_clock_gb300", &SpeedParameters::sustained_clock_gb300, 0.6, 1.0, true,
       "GB300 sustained tensor throughput / datasheet peak, relative to Hopper's"},
  };
  return bounds;
}

double sustained_clock(const SpeedParameters& p, const std::string& gpu_type) {
  if (gpu_type == "B200") return p.sustained_clock_b200;
  if (gpu_type == "B300") return p.sustained_clock_b300;
  if (gpu_type == "GB200") return p.sustained_clock_gb200;
  if (gpu_type == "GB300") return p.sustained_clock_gb300;
  return 1.0;
}

ForwardFlops forward_flops_per_token(const ModelShape& m, std::int64_t row_tokens) {
  ForwardFlops f;
  // Linear layers: 2 FLOP (multiply and add) per weight a token touches (Kaplan et al. 2020,
  // arXiv:2001.08361, sec. 2.1): attention and GDN projections, dense MLPs, the top-k routed
  // experts, the shared expert and the router of every MoE layer.
  double weights =
      as_double(m.attention_layers) * as_double(m.attention_params) +
      as_double(m.linear_attention_layers) * as_double(m.linear_attention_params) +
      as_double(m.dense_mlp_layers) * as_double(m.dense_mlp_params) +
      as_double(m.moe_layers) * (m.experts_per_token * as_double(m.expert_params) +
                                 as_double(m.shared_expert_params) + as_double(m.router_params));
  // Mamba-2 projections (and the depthwise convolution, one multiply-add per weight and token)
  // and the sparse-attention indexer's projections.
  weights += as_double(m.mamba_layers) * as_double(m.mamba_params) +
             as_double(m.attention_layers) * as_double(m.indexer_params);
  f.layer_matmul_flop = 2 * weights;
  f.output_flop =
      2 * as_double(m.output_params > 0 ? m.output_params : m.vocab_size * m.hidden_size);
  // Softmax attention: QK^T and AV each cost 2 x heads x head_dim FLOP per attended key, so
  // 4 x heads x head_dim x context per token and layer. Causal masking halves the full row's
  // context (mean s / 2), as Megatron-LM's num_floating_point_operations counts it
  // (Narayanan et al. 2021, arXiv:2104.04473, appendix). A sliding-window layer attends to at most
  // its window.
  double full_context = full_attention_keys(m, as_double(row_tokens));
  double sliding_context = std::min(as_double(m.sliding_window), as_double(row_tokens) / 2);
  double per_context = 4.0 * m.attention_heads * m.head_dim;
  int full_layers = m.attention_layers - m.sliding_window_layers;
  f.attention_core_flop =
      per_context * (full_layers * full_context + m.sliding_window_layers * sliding_context);
  // Gated DeltaNet, chunked delta rule with chunk C (Yang et al. 2024, arXiv:2412.06464, sec. 3.2;
  // our count, an assumption): per value head and token, the state update and output read
  // (S^T k, S q against the dk x dv state: 4 dk dv) plus the intra-chunk attention-like products
  // over the C tokens of its chunk (2 C (dk + dv)).
  double dk = m.linear_key_head_dim, dv = m.linear_value_head_dim;
  f.linear_attention_core_flop = as_double(m.linear_attention_layers) * m.linear_value_heads *
                                 (4 * dk * dv + 2 * kDeltaNetChunkTokens * (dk + dv));
  f.mamba_core_flop =
      as_double(m.mamba_layers) *
      mamba_scan_flop_per_token(m, m.mamba_heads, m.mamba_groups, as_double(row_tokens));
  f.indexer_core_flop = as_double(m.attention_layers) * 2.0 * m.indexer_heads * m.indexer_head_dim *
                        indexer_keys(m, as_double(row_tokens));
  return f;
}

namespace {

// The layout's group sizes (each at least 1) and the shape of one step's micro-batches.
struct StepShape {
  int tp = 1, pp = 1, cp = 1, vpp = 1, ep = 1, etp = 1;
  int world = 1;        // W
  int dp = 1;           // implied DP
  int rows_per_mb = 1;  // rows per micro-batch
  int layers = 1;       // the model's decoder layers
  double s = 0;         // tokens per row
  double m = 1;         // micro-batches per DP rank per step
};

StepShape step_shape(const ModelShape& model, const ClusterShape& cluster,
                     const PlanWorkload& workload, const Layout& layout) {
  StepShape sh;
  sh.tp = std::max(layout.tp, 1), sh.pp = std::max(layout.pp, 1), sh.cp = std::max(layout.cp, 1);
  sh.vpp = std::max(layout.vpp, 1), sh.ep = std::max(layout.ep, 1);
  sh.etp = std::max(layout.etp, 1);
  sh.world = std::max(cluster.gpus, 1);
  sh.dp = std::max(implied_data_parallel(cluster, layout), 1);
  sh.rows_per_mb = std::max(layout.rows_per_microbatch, 1);
  sh.s = as_double(workload.row_tokens);
  sh.m = std::max(1.0, as_double(workload.global_batch) / (sh.dp * sh.rows_per_mb));
  sh.layers = std::max(model.layers, 1);
  return sh;
}

// The pipeline stage that does the most FLOPs per micro-batch.
struct LoadedStage {
  int index = 0;
  int layers = 0;
  bool has_output = true;
  bool has_embedding = false;
  double layer_share = 1;  // its layers / the model's layers
};

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
  Recompute selective;           // the layout's recompute when selective: its modules rerun
  double share = 0;              // recomputed layers / stage layers
  int stage_layers = 0;          // the stage's layers
};

// Computes the recomputed layers and units of `layout` on a stage of `stage_layers` layers.
// Recompute (Megatron-LM --recompute-granularity/-method/-num-layers): full recomputes the
// forward of whole layers, checkpointed in units; uniform splits every virtual chunk's layers into
// units of num_layers, block checkpoints the first num_layers layers of each chunk one by one.
// Selective reruns the forward of the modules it names (core attention alone by default).
RecomputeCost recompute_cost(const Layout& layout, int stage_layers, int vpp) {
  RecomputeCost rc;
  if (layout.recompute) {
    const Recompute& r = *layout.recompute;
    int k = std::max(r.num_layers.value_or(1), 1);
    int chunk_layers = std::max(stage_layers / vpp, 1);
    if (r.granularity == "full") {
      if (r.method == "block") {
        rc.recomputed_layers = as_double(std::min(k, chunk_layers)) * vpp;
        rc.units = rc.recomputed_layers;
      } else {
        rc.recomputed_layers = stage_layers;
        rc.units = std::ceil(static_cast<double>(chunk_layers) / k) * vpp;
      }
    } else if (r.granularity == "selective") {
      rc.selective = r;
    }
  }
  rc.stage_layers = stage_layers;
  rc.share = stage_layers > 0 ? rc.recomputed_layers / stage_layers : 0;
  return rc;
}

// What `rc` (of `layout`) recomputes, in words for --explain. Formatted only there: the search
// predicts millions of layouts and reads none of it.
std::string recompute_cost_text(const Layout& layout, const RecomputeCost& rc) {
  if (!layout.recompute) return "none";
  const Recompute& r = *layout.recompute;
  if (r.granularity == "full") {
    return fmt::format("full {} of {} layers in {} units", rc.recomputed_layers, rc.stage_layers,
                       rc.units);
  }
  if (r.granularity == "selective") {
    return fmt::format("selective ({})", r.modules.empty()
                                             ? std::string("core_attn")
                                             : fmt::format("{}", fmt::join(r.modules, ", ")));
  }
  return "none";
}

// The achieved rates of `cluster`'s GPU for `workload`'s precision under `p`.
ComputeRates rates_of(const ClusterShape& cluster, const PlanWorkload& workload,
                      const SpeedParameters& p) {
  // The tensor cores and the special-function units run at the sustained clock; HBM does not.
  // (Scaled copies of the five rates, not of the Gpu: the fit asks this for every prediction.)
  const Gpu& gpu = cluster.gpu;
  const double clock = sustained_clock(p, gpu.type);
  const double bf16 = gpu.peak_bf16_dense_flop_per_s * clock;
  const double fp8 = gpu.peak_fp8_dense_flop_per_s * clock;
  const double mxfp8 = gpu.peak_mxfp8_dense_flop_per_s * clock;
  const double nvfp4 = gpu.peak_nvfp4_dense_flop_per_s * clock;
  const double exp_per_s = gpu.exp_per_s * clock;
  const bool blackwell = mxfp8 > 0;
  const double hbm = gpu.hbm_gb_per_s * 1e9 * p.hbm_efficiency;
  ComputeRates r;
  r.bf16 = gemm_device(bf16, p.gemm_efficiency, hbm, gpu.sm_count, blackwell);
  double peak = bf16;
  switch (workload.precision) {
    case Precision::kFp8:
      peak = fp8, r.linear_input_bytes = 1;
      break;
    case Precision::kMxfp8:
      peak = mxfp8 > 0 ? mxfp8 : fp8;
      r.linear_input_bytes = 1;
      break;
    case Precision::kNvfp4:
      peak = nvfp4 > 0 ? nvfp4 : fp8;
      r.linear_input_bytes = 0.5;
      break;
    case Precision::kBf16:
      break;
  }
  r.low_precision = workload.precision != Precision::kBf16 && peak > 0;
  if (!r.low_precision) peak = bf16, r.linear_input_bytes = 2;
  r.linear =
      gemm_device(peak, r.low_precision ? p.low_precision_gemm_efficiency : p.gemm_efficiency, hbm,
                  gpu.sm_count, blackwell);
  r.attention_flop_per_s = bf16 * p.attention_efficiency;
  r.exp_per_s = exp_per_s > 0 ? exp_per_s : bf16 / 256;
  r.hbm_bytes_per_s = hbm;
  r.kernel_overhead_s = p.kernel_overhead_s;
  r.grouped_gemm_efficiency = p.grouped_gemm_efficiency;
  return r;
}

// A transfer partly hidden behind compute: seconds in all and exposed.
struct Overlapped {
  double raw_s = 0, s = 0;
};

// Every number of one step, before it is explained.
struct StepBreakdown {
  StepShape sh;
  LoadedStage stage;
  RecomputeCost recompute;
  ComputeTime compute;
  ComputeRates rates;
  double gemm_s = 0, attention_s = 0, memory_bound_s = 0, kernel_s = 0, recompute_s = 0;
  Overlapped tp, cp, ep;
  double etp_s = 0, pp_s = 0;
  double microbatch_s = 0, bubble_s = 0;
  double dp_rs_s = 0, dp_ag_s = 0, dp_s = 0, optimizer_s = 0;
  int expert_dp = 1;
  double step_s = 0;
};

// Compute of one micro-batch, forward, backward and recompute, split by kind.
void add_compute(StepBreakdown& b, const ModelShape& model, const PlanWorkload& workload,
                 const Layout& layout, const SpeedParameters& p) {
  StageWork w;
  w.layer_share = b.stage.layer_share;
  w.has_output = b.stage.has_output;
  w.rows = b.sh.rows_per_mb, w.row_tokens = b.sh.s;
  w.tp = b.sh.tp, w.cp = b.sh.cp, w.ep = b.sh.ep, w.etp = b.sh.etp;
  w.routing_imbalance = workload.forced_balanced_routing ? 1.0 : p.routing_imbalance;
  w.fused_expert_mlp = workload.fused_expert_mlp;
  w.permute_in_dispatch = hybridep_permutes(layout, workload, b.sh.ep);
  w.recompute = b.recompute.selective;
  const ComputeTime& c = b.compute = micro_batch_compute(model, w, b.rates);
  b.gemm_s = c.dense_gemm_fwd_s + c.expert_gemm_fwd_s + c.output_fwd_s + c.dense_gemm_bwd_s +
             c.expert_gemm_bwd_s + c.output_bwd_s;
  b.attention_s = c.attention_fwd_s + c.attention_bwd_s + c.gdn_fwd_s + c.gdn_bwd_s + c.ssm_fwd_s +
                  c.ssm_bwd_s + c.indexer_fwd_s + c.indexer_bwd_s;
  b.memory_bound_s = c.memory_bound_fwd_s + c.memory_bound_bwd_s;
  b.kernel_s = 3 * c.kernels_fwd * b.rates.kernel_overhead_s;
  // Full recompute runs the recomputed layers' forward again (the output layer is not
  // recomputed); selective reruns its modules' forward (Korthikanti et al. 2022, sec. 5, for
  // core attention; Megatron-Core's recompute_modules for the others).
  double layers_fwd = c.forward_s(b.rates) - c.output_fwd_s;
  b.recompute_s = b.recompute.share * layers_fwd + c.selective_recompute_fwd_s +
                  b.recompute.units * p.recompute_unit_overhead_s;
}

// EP all-to-all under --overlap-moe-expert-parallel-comm: Megatron-Core's combined 1F1B pairs
// one micro-batch's forward with another's backward and runs each one's dispatch and combine
// while the other computes (DeepSeek-AI 2024, arXiv:2412.19437, sec. 3.2.2, the overlap Megatron-LM
// implements in megatron/core/pipeline_parallel/combined_1f1b.py), so a paired micro-batch
// exposes only what exceeds the other's compute. The warm-up forwards and cool-down backwards
// have no partner: about 1 + 2 (PP - 1) + (VPP - 1) PP of the m x VPP chunk passes of a stage
// (Megatron-LM's interleaved schedule's warm-up count, plus the one extra micro-batch the overlap
// adds), where the whole all-to-all shows. Returns the exposed seconds per micro-batch.
double a2a_overlapped_s(const StepBreakdown& b, const ComputeTime& c) {
  const StepShape& sh = b.sh;
  double unpaired_passes = 1 + 2.0 * (sh.pp - 1) + (sh.vpp - 1.0) * sh.pp;
  double unpaired = std::min(1.0, unpaired_passes / (sh.m * sh.vpp));
  double compute_s = c.forward_s(b.rates) + c.backward_s(b.rates);
  double paired_s = std::max(0.0, b.ep.raw_s - compute_s);
  return unpaired * b.ep.raw_s + (1 - unpaired) * paired_s;
}

// Communication of one micro-batch: TP (with SP), CP's K/V ring, EP all-to-all, ETP, PP.
// Ranks are ordered TP, CP, DP, PP for dense layers and ETP, EP, expert DP, PP for experts
// (Megatron-Core's parallel_state rank generators), so a group of size g with stride s spans g x s
// consecutive GPUs.
void add_communication(StepBreakdown& b, const ModelShape& model, const Layout& layout,
                       const PlanWorkload& workload, const Fabric& fabric,
                       const SpeedParameters& p) {
  // Sets every communication term afresh (some below add up), so a breakdown whose compute is
  // reused can be priced again under another dispatcher (predict_per_dispatcher).
  b.tp = b.cp = b.ep = Overlapped{};
  b.etp_s = b.pp_s = 0;
  const StepShape& sh = b.sh;
  const ComputeTime& c = b.compute;
  const double h = model.hidden_size, passes = 1 + b.recompute.share;
  const double tokens = sh.rows_per_mb * sh.s / sh.cp;  // per GPU, gathered over TP
  // TP with sequence parallelism: all-gather before and reduce-scatter after each block (the
  // mixer and the MLP of a transformer layer; one of them in a Nemotron-H layer), in each forward
  // pass and in backward (Korthikanti et al. 2022, arXiv:2205.05198, sec. 4.2.2). With
  // --tp-comm-overlap they run under the GEMMs they feed, except the first chunk of each ring.
  double tp_one = ring_collective_s(tokens * h * kBf16Bytes, sh.tp, sh.tp, fabric);
  b.tp.raw_s = b.stage.layers * (2 * blocks_per_layer(model)) * (passes + 1) * tp_one;
  // Selective recompute of a whole dense MLP or MoE block gathers and scatters its tokens again.
  const Recompute& selective = b.recompute.selective;
  const bool rerun_moe = selective.recomputes_module("moe");
  double rerun_blocks =
      (selective.recomputes_module("mlp") ? as_double(model.dense_mlp_layers) : 0) +
      (rerun_moe ? as_double(model.moe_layers) : 0);
  b.tp.raw_s += rerun_blocks * b.stage.layer_share * 2 * tp_one;
  double dense_gemm_s = c.dense_gemm_fwd_s * passes + c.dense_gemm_bwd_s;
  b.tp.s = workload.tp_comm_overlap && sh.tp > 1
               ? std::max(b.tp.raw_s / sh.tp, b.tp.raw_s - dense_gemm_s)
               : b.tp.raw_s;
  // CP: ring exchange of K and V (Transformer Engine's p2p context parallelism), CP - 1 hops of
  // one rank's K/V forward, K/V and their gradients backward, under core attention.
  if (sh.cp > 1 && model.attention_layers > 0 && !has_sparse_attention(model)) {
    double kv = tokens * 2 * model.kv_heads * model.head_dim * kBf16Bytes / sh.tp;
    double attn_layers = as_double(model.attention_layers) * b.stage.layer_share;
    b.cp.raw_s = attn_layers * (passes + 2) * (sh.cp - 1) * point_to_point_s(kv, sh.tp, fabric);
    double attention_s = c.attention_fwd_s * passes + c.attention_bwd_s;
    b.cp.s = std::max(0.0, b.cp.raw_s - attention_s);
  }
  // CP with DeepSeek sparse attention: Megatron-Core's DSAttention supports only
  // cp_comm_type=allgather (megatron/core/transformer/experimental_attention_variant/dsa.py): the
  // CP ranks' keys, values and indexer keys are all-gathered before the attention in each
  // forward pass and their gradients reduce-scattered in backward, not hidden (the top-k needs
  // every key first).
  if (sh.cp > 1 && model.attention_layers > 0 && has_sparse_attention(model)) {
    double kv = tokens * (2.0 * model.kv_heads * model.head_dim / sh.tp + model.indexer_head_dim) *
                kBf16Bytes;
    double attn_layers = as_double(model.attention_layers) * b.stage.layer_share;
    double one = ring_collective_s(kv * sh.cp, sh.cp, sh.tp * sh.cp, fabric);
    b.cp.raw_s = attn_layers * (passes + 1) * one;
    b.cp.s = b.cp.raw_s;
  }
  // CP over Gated DeltaNet: the recurrence runs whole rows, so its heads are split over the CP
  // ranks instead (Megatron-Core's gated_delta_net.py): an all-to-all of the projected inputs
  // before it and of its output after it, in each pass, not hidden.
  if (sh.cp > 1 && model.linear_attention_layers > 0) {
    double width = as_double(model.linear_attention_params) / h / sh.tp;  // projection in + out
    double gdn_layers = as_double(model.linear_attention_layers) * b.stage.layer_share;
    double one = all_to_all_s(tokens * width * kBf16Bytes, sh.cp, sh.tp * sh.cp, fabric);
    b.cp.raw_s += gdn_layers * (passes + 1) * one;
    b.cp.s += gdn_layers * (passes + 1) * one;
  }
  // CP over Mamba-2: the same all-to-all from sequence to head parallelism, of the in_proj
  // outputs (z, x, B, C, dt) before the convolution and scan and of their output after
  // (MambaContextParallel.pre_conv_ssm / post_conv_ssm,
  // megatron/core/ssm/mamba_context_parallel.py), in each pass, not hidden.
  if (sh.cp > 1 && model.mamba_layers > 0) {
    double width = (mamba_in_proj_outputs(model) + mamba_inner(model)) / sh.tp;
    double mamba_layers = as_double(model.mamba_layers) * b.stage.layer_share;
    double one = all_to_all_s(tokens * width * kBf16Bytes, sh.cp, sh.tp * sh.cp, fabric);
    b.cp.raw_s += mamba_layers * (passes + 1) * one;
    b.cp.s += mamba_layers * (passes + 1) * one;
  }
  // EP: all-to-all dispatch and combine of the routed copies of the GPU's tokens, in each forward
  // pass and again in backward; with --moe-shared-expert-overlap the shared expert runs while
  // they are in flight (Megatron-Core's SharedExpertMLP on a side stream), else after them.
  if (sh.ep > 1 && model.is_moe()) {
    double imbalance = workload.forced_balanced_routing ? 1.0 : p.routing_imbalance;
    double bytes = tokens / sh.tp * model.experts_per_token * h * kBf16Bytes * imbalance;
    // HybridEP's kernels drive the NVLink domain itself (TMA copies), so its fitted factor scales
    // the whole all-to-all; DeepEP's gain is across nodes (one copy per remote node reached,
    // forwarded over NVLink there), so it scales only the network share, by the copies it saves
    // (deepep_network_share), and inside one domain DeepEP counts as alltoall.
    bool flex = layout.dispatcher == "flex";
    double factor = flex && workload.hybridep ? p.hybridep_dispatcher_factor : 1.0;
    double network_scale =
        flex && !workload.hybridep
            ? deepep_network_share(model.experts, model.experts_per_token,
                                   static_cast<double>(sh.ep * sh.etp) / fabric.domain)
            : 1.0;
    double moe_layers = as_double(model.moe_layers) * b.stage.layer_share;
    // Selective recompute of the whole MoE layer dispatches and combines once more.
    double ep_passes = passes + (rerun_moe ? 1 : 0);
    // The allgather dispatcher gathers every token of the TP x EP group to each rank (not only
    // the routed copies) and reduce-scatters the outputs back (Megatron-Core's
    // MoEAllGatherTokenDispatcher, megatron/core/transformer/moe/token_dispatcher.py): a ring
    // over TP x EP ranks of the group's tokens, whatever the routing.
    double one = layout.dispatcher == "allgather"
                     ? ring_collective_s(tokens * sh.ep * h * kBf16Bytes, sh.ep * sh.tp,
                                         sh.ep * sh.tp, fabric)
                     : factor * all_to_all_s(bytes, sh.ep, sh.ep * sh.etp, fabric, network_scale);
    b.ep.raw_s = moe_layers * 2 * (ep_passes + 1) * one;
    double shared_s = workload.shared_expert_overlap ? c.shared_expert_fwd_s * (passes + 2) : 0;
    b.ep.s = std::max(0.0, b.ep.raw_s - shared_s);
    if (workload.ep_a2a_overlap) b.ep.s = a2a_overlapped_s(b, c);
  }
  // ETP: the routed copies gathered over the ETP ranks before the expert MLP and reduce-scattered
  // after it, as TP does around a dense MLP.
  if (sh.etp > 1 && model.is_moe()) {
    double bytes = tokens / sh.tp * sh.etp * model.experts_per_token * h * kBf16Bytes;
    b.etp_s = as_double(model.moe_layers) * b.stage.layer_share * 2 * (passes + 1) *
              ring_collective_s(bytes, sh.etp, sh.etp, fabric);
  }
  // PP: activations forward and gradients back across each virtual chunk's boundary; with VPP > 1
  // Megatron-LM overlaps each send with the next chunk's compute (overlap_p2p_comm), so a send
  // shows only what it takes beyond one chunk's forward (or backward) pass, at least the call
  // latency.
  if (sh.pp > 1) {
    double bytes = tokens / sh.tp * h * kBf16Bytes;
    double one = point_to_point_s(bytes, sh.world / sh.pp, fabric);
    if (sh.vpp > 1) {
      double chunk_fwd_s = b.compute.forward_s(b.rates) / sh.vpp;
      double chunk_bwd_s = b.compute.backward_s(b.rates) / sh.vpp;
      b.pp_s = sh.vpp * (std::max(fabric.latency_s, one - chunk_fwd_s) +
                         std::max(fabric.latency_s, one - chunk_bwd_s));
    } else {
      b.pp_s = 2.0 * one;
    }
  }
}

// DP with the distributed optimizer: reduce-scatter of the gradients (FP32 with
// grad_reduce_in_fp32, else BF16) and all-gather of the
// parameters (BF16, or FP8 for a low-precision run: fp8_param_gather) of the stage's weights,
// dense over DP x CP and experts over expert DP = W / (PP x EP x ETP); overlapped with the last
// micro-batch's backward and the first one's forward, except a one-layer tail. Then the Adam step
// over the rank's shard, memory-bound.
void add_data_parallel(StepBreakdown& b, const ModelShape& model, const PlanWorkload& workload,
                       const Fabric& fabric) {
  const StepShape& sh = b.sh;
  // The indexer's weights are duplicated on every TP rank (Megatron-Core DSAIndexer).
  double duplicated = tp_duplicated_params_per_layer(model) * b.stage.layers;
  double dense = (model.dense_params_per_layer() * b.stage.layers - duplicated +
                  (b.stage.has_output ? as_double(model.output_params) : 0) +
                  (b.stage.has_embedding ? as_double(model.embedding_params) : 0)) /
                     sh.tp +
                 duplicated;
  double expert = model.expert_params_per_layer() * b.stage.layers / (sh.ep * sh.etp);
  b.expert_dp = std::max(sh.world / (sh.pp * sh.ep * sh.etp), 1);
  int dense_group = sh.dp * sh.cp;
  double gather_bytes = b.rates.low_precision ? 1 : kBf16Bytes;
  double grad_bytes = gradient_bytes_per_param(workload);
  b.dp_rs_s =
      ring_collective_s(dense * grad_bytes, dense_group, sh.tp * dense_group, fabric) +
      ring_collective_s(expert * grad_bytes, b.expert_dp, sh.ep * sh.etp * b.expert_dp, fabric);
  b.dp_ag_s =
      ring_collective_s(dense * gather_bytes, dense_group, sh.tp * dense_group, fabric) +
      ring_collective_s(expert * gather_bytes, b.expert_dp, sh.ep * sh.etp * b.expert_dp, fabric);
  double backward_s = b.compute.backward_s(b.rates);
  double forward_s = b.compute.forward_s(b.rates);
  double tail_s = b.stage.layers > 0 ? (b.dp_rs_s + b.dp_ag_s) / b.stage.layers : 0;
  b.dp_s = std::max(0.0, b.dp_rs_s - backward_s) + std::max(0.0, b.dp_ag_s - forward_s) + tail_s;
  double shard = dense / std::max(dense_group, 1) + expert / b.expert_dp;
  b.optimizer_s = b.rates.hbm_bytes_per_s > 0
                      ? shard * kOptimizerStepBytesPerParam / b.rates.hbm_bytes_per_s
                      : 0;
}

// The micro-batch's communication, then the step's sum, on `b` whose compute is set.
void finish_breakdown(StepBreakdown& b, const ModelShape& model, const PlanWorkload& workload,
                      const Layout& layout, const Fabric& fabric, const SpeedParameters& p) {
  add_communication(b, model, layout, workload, fabric, p);
  b.microbatch_s = b.gemm_s + b.attention_s + b.memory_bound_s + b.kernel_s + b.recompute_s +
                   b.tp.s + b.cp.s + b.ep.s + b.etp_s + b.pp_s;
  // Pipeline bubble of (interleaved) 1F1B: (PP - 1) / VPP micro-batch times (Narayanan et al.
  // 2021, arXiv:2104.04473, sec. 2.2).
  b.bubble_s = (b.sh.pp - 1.0) / b.sh.vpp * b.microbatch_s;
  add_data_parallel(b, model, workload, fabric);
  b.step_s = b.sh.m * b.microbatch_s + b.bubble_s + b.dp_s + b.optimizer_s;
}

StepBreakdown step_breakdown(const ModelShape& model, const ClusterShape& cluster,
                             const PlanWorkload& workload, const Layout& layout,
                             const SpeedParameters& p) {
  StepBreakdown b;
  b.sh = step_shape(model, cluster, workload, layout);
  const ForwardFlops f = forward_flops_per_token(model, workload.row_tokens);
  b.stage = most_loaded_stage(model, layout, f, b.sh);
  b.recompute = recompute_cost(layout, b.stage.layers, b.sh.vpp);
  b.rates = rates_of(cluster, workload, p);
  add_compute(b, model, workload, layout, p);
  finish_breakdown(b, model, workload, layout,
                   fabric_of(cluster, p.communication_efficiency, p.collective_latency_s), p);
  return b;
}

double tokens_per_s_per_gpu_of(const StepBreakdown& b, const PlanWorkload& workload) {
  double tokens = as_double(workload.global_batch) * b.sh.s;
  return b.step_s > 0 ? tokens / (b.step_s * b.sh.world) : 0;
}

// The explained terms of the step time; they add up to b.step_s.
std::vector<StepTimeTerm> step_time_terms(const StepBreakdown& b, const ModelShape& model,
                                          const ClusterShape& cluster, const Layout& layout,
                                          const PlanWorkload& workload) {
  const StepShape& sh = b.sh;
  const ComputeTime& c = b.compute;
  const double m = sh.m;
  const Fabric f = fabric_of(cluster, 1, 0);
  auto link = [&](int span) { return within_domain(f, span) ? "NVLink" : "network"; };
  const std::string stage =
      fmt::format("stage {} ({} layers{}), {:.0f} micro-batches of {} rows x {:.0f} tokens / CP {}",
                  b.stage.index, b.stage.layers, b.stage.has_output ? " + output layer" : "", m,
                  sh.rows_per_mb, sh.s, sh.cp);
  const char* moe_bytes_text = !model.is_moe() ? ""
                               : hybridep_permutes(layout, workload, sh.ep)
                                   ? ", router (permute in the HybridEP dispatch)"
                                   : ", router, permute";
  std::string experts =
      model.is_moe()
          ? fmt::format("; routed experts {:.3g} s fwd as grouped GEMMs of M = {:.0f} tokens",
                        c.expert_gemm_fwd_s, c.tokens_per_expert)
          : "";
  return {
      {"GEMMs", m * b.gemm_s,
       fmt::format("{} linear layers at {:.3g} FLOP/s x {:.2f}, output layer BF16; dense {:.3g} s "
                   "fwd{}; dgrad + wgrad {:.3g} s; {}",
                   precision_name(workload.precision), b.rates.linear.peak_flop_per_s,
                   b.rates.linear.efficiency, c.dense_gemm_fwd_s + c.output_fwd_s, experts,
                   c.dense_gemm_bwd_s + c.expert_gemm_bwd_s + c.output_bwd_s, stage)},
      {"attention kernels", m * b.attention_s,
       fmt::format("softmax {:.3g} s fwd + {:.3g} s bwd, Gated DeltaNet {:.3g} s, Mamba-2 scan "
                   "{:.3g} s, sparse-attention indexer {:.3g} s, at {:.3g} FLOP/s plus "
                   "exponentials at {:.3g}/s",
                   c.attention_fwd_s, c.attention_bwd_s, c.gdn_fwd_s + c.gdn_bwd_s,
                   c.ssm_fwd_s + c.ssm_bwd_s, c.indexer_fwd_s + c.indexer_bwd_s,
                   b.rates.attention_flop_per_s, b.rates.exp_per_s)},
      {"memory-bound kernels", m * b.memory_bound_s,
       fmt::format("norms, residuals, rotary, activations{}{} at {:.3g} B/s", moe_bytes_text,
                   b.rates.low_precision ? ", casts" : "", b.rates.hbm_bytes_per_s)},
      {"kernel overhead", m * b.kernel_s,
       fmt::format("{:.0f} kernels per pass x 3 passes x {:.3g} s", c.kernels_fwd,
                   b.rates.kernel_overhead_s)},
      {"recompute", m * b.recompute_s,
       fmt::format("{}: the recomputed layers' or modules' forward plus a fixed cost per unit",
                   recompute_cost_text(layout, b.recompute))},
      {"TP communication", m * b.tp.s,
       fmt::format("TP {}: {:.3g} s of all-gather + reduce-scatter over {}, {}", sh.tp, b.tp.raw_s,
                   link(sh.tp),
                   workload.tp_comm_overlap ? "overlapped with GEMMs" : "not overlapped")},
      {"CP communication", m * b.cp.s,
       fmt::format("CP {}: K/V ring (the excess over attention exposed; all-gather with sparse "
                   "attention) and the Gated DeltaNet and Mamba-2 head all-to-all, {:.3g} s per "
                   "micro-batch",
                   sh.cp, b.cp.raw_s)},
      {"EP communication", m * b.ep.s,
       fmt::format("EP {}: {} {:.3g} s per micro-batch over {}, dispatcher {}{}", sh.ep,
                   layout.dispatcher == "allgather" ? "all-gather + reduce-scatter" : "all-to-all",
                   b.ep.raw_s,
                   link(layout.dispatcher == "allgather" ? sh.ep * sh.tp : sh.ep * sh.etp),
                   layout.dispatcher.empty() ? "alltoall" : dispatcher_name(layout, workload),
                   workload.ep_a2a_overlap
                       ? ", overlapped with another micro-batch's compute (A2A/1F1B overlap) "
                         "except in warm-up and cool-down"
                   : workload.shared_expert_overlap ? ", less the shared experts' time (overlapped)"
                                                    : ", not overlapped")},
      {"ETP communication", m * b.etp_s,
       fmt::format("ETP {}: all-gather + reduce-scatter of routed tokens over {}", sh.etp,
                   link(sh.etp))},
      {"PP communication", m * b.pp_s,
       sh.pp == 1
           ? std::string("PP 1: no pipeline sends")
           : fmt::format("PP {}: point-to-point over {}{}", sh.pp, link(sh.world / sh.pp + 1),
                         sh.vpp > 1 ? ", overlapped with the next chunk's compute (the excess "
                                      "exposed)"
                                    : "")},
      {"pipeline bubble", b.bubble_s,
       fmt::format("(PP - 1) / VPP = {} / {} micro-batch times", sh.pp - 1, sh.vpp)},
      {"DP communication", b.dp_s,
       fmt::format("DP {} / expert DP {}: reduce-scatter {:.3g} s + all-gather {:.3g} s, exposed "
                   "beyond one micro-batch's backward/forward, plus a one-layer tail",
                   sh.dp, b.expert_dp, b.dp_rs_s, b.dp_ag_s)},
      {"optimizer step", b.optimizer_s,
       fmt::format("Adam over the rank's shard, {:.0f} B per parameter at {:.3g} B/s",
                   kOptimizerStepBytesPerParam, b.rates.hbm_bytes_per_s)},
  };
}

}  // namespace

double predict_tokens_per_s_per_gpu(const ModelShape& model, const ClusterShape& cluster,
                                    const PlanWorkload& workload, const Layout& layout,
                                    const SpeedParameters& p) {
  return tokens_per_s_per_gpu_of(step_breakdown(model, cluster, workload, layout, p), workload);
}

std::string dispatcher_name(const Layout& layout, const PlanWorkload& workload) {
  if (layout.dispatcher != "flex") return layout.dispatcher;
  return workload.hybridep ? "flex (HybridEP)" : "flex (DeepEP)";
}

std::vector<double> predict_per_dispatcher(const ModelShape& model, const ClusterShape& cluster,
                                           const PlanWorkload& workload, const Layout& layout,
                                           const std::vector<std::string>& dispatchers,
                                           const SpeedParameters& p) {
  std::vector<double> out;
  if (dispatchers.empty()) return out;
  Layout variant = layout;
  variant.dispatcher = dispatchers.front();
  const StepBreakdown first = step_breakdown(model, cluster, workload, variant, p);
  out.push_back(tokens_per_s_per_gpu_of(first, workload));
  const Fabric fabric = fabric_of(cluster, p.communication_efficiency, p.collective_latency_s);
  const bool first_permutes = hybridep_permutes(variant, workload, first.sh.ep);
  for (std::size_t i = 1; i < dispatchers.size(); ++i) {
    variant.dispatcher = dispatchers[i];
    StepBreakdown b = first;
    // Only HybridEP's permutation inside the dispatch changes the compute (StageWork).
    if (hybridep_permutes(variant, workload, b.sh.ep) != first_permutes)
      add_compute(b, model, workload, variant, p);
    finish_breakdown(b, model, workload, variant, fabric, p);
    out.push_back(tokens_per_s_per_gpu_of(b, workload));
  }
  return out;
}

SpeedEstimate estimate_speed(const ModelShape& model, const ClusterShape& cluster,
                             const PlanWorkload& workload, const Layout& layout,
                             const SpeedParameters& p, bool explain) {
  const StepBreakdown b = step_breakdown(model, cluster, workload, layout, p);
  const ForwardFlops f = forward_flops_per_token(model, workload.row_tokens);
  SpeedEstimate e;
  double tokens_per_gpu_mb = b.sh.rows_per_mb * b.sh.s / (b.sh.tp * b.sh.cp);
  double fwd_flop = tokens_per_gpu_mb * (f.total() - f.output_flop) * b.stage.layer_share +
                    (b.stage.has_output ? tokens_per_gpu_mb * f.output_flop : 0);
  e.flop_per_step_per_gpu = b.sh.m * fwd_flop * (3 + b.recompute.share);
  e.step_time_s = b.step_s;
  e.tokens_per_s_per_gpu = tokens_per_s_per_gpu_of(b, workload);
  e.mfu = model_flops_utilization(model.active_params, e.tokens_per_s_per_gpu,
                                  cluster.gpu.peak_bf16_dense_flop_per_s);
  e.usd_per_million_tokens =
      e.tokens_per_s_per_gpu > 0 && cluster.gpu.usd_per_gpu_hour > 0
          ? usd_per_million_tokens(cluster.gpu.usd_per_gpu_hour, e.tokens_per_s_per_gpu)
          : 0;
  if (explain) e.terms = step_time_terms(b, model, cluster, layout, workload);
  return e;
}

}  // namespace openrecipes
