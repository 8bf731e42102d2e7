#include "plan/speed_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "plan/collective_time.h"
#include "test_support.h"

namespace openrecipes {
namespace {

// A tiny dense model built by hand: 2 layers, hidden 64, 4 heads of 16 (no GQA), MLP 128
// (gated: 3 x 64 x 128 weights), vocabulary 100, untied.
ModelShape tiny_dense(int layers = 2) {
  ModelShape m;
  m.name = "tiny";
  m.layers = layers;
  m.hidden_size = 64;
  m.vocab_size = 100;
  m.attention_heads = 4;
  m.kv_heads = 4;
  m.head_dim = 16;
  m.attention_layers = layers;
  m.attention_params = 4 * 64 * 64;  // Q, K, V, O: 16,384
  m.dense_mlp_layers = layers;
  m.dense_ffn_hidden_size = 128;
  m.dense_mlp_params = 3 * 64 * 128;  // 24,576
  m.embedding_params = 100 * 64;
  m.output_params = 100 * 64;  // 6,400
  m.active_params = layers * (16384 + 24576) + 6400;
  return m;
}

double term(const SpeedEstimate& e, const std::string& name) {
  for (const StepTimeTerm& t : e.terms) {
    if (t.name == name) return t.seconds;
  }
  ADD_FAILURE() << "no term " << name;
  return 0;
}

TEST(SpeedModel, ForwardFlopsOfATinyDenseModelByHand) {
  // Per token, s = 128: linear layers 2 x 2 x (16,384 + 24,576) = 163,840; output 2 x 6,400 =
  // 12,800; core attention 4 x 4 heads x 16 x (128 / 2) x 2 layers = 32,768.
  ForwardFlops f = forward_flops_per_token(tiny_dense(), 128);
  EXPECT_DOUBLE_EQ(f.layer_matmul_flop, 163840);
  EXPECT_DOUBLE_EQ(f.output_flop, 12800);
  EXPECT_DOUBLE_EQ(f.attention_core_flop, 32768);
  EXPECT_DOUBLE_EQ(f.linear_attention_core_flop, 0);
  EXPECT_DOUBLE_EQ(f.total(), 209408);
}

TEST(SpeedModel, SlidingWindowAndGatedDeltaNetFlops) {
  ModelShape m = tiny_dense();
  m.sliding_window_layers = 1;
  m.sliding_window = 16;
  // One full layer at context 64, one sliding at min(16, 64) = 16: 4 x 4 x 16 x (64 + 16).
  EXPECT_DOUBLE_EQ(forward_flops_per_token(m, 128).attention_core_flop, 256.0 * 80);
  m.linear_attention_layers = 1;
  m.linear_value_heads = 2;
  m.linear_key_head_dim = 8;
  m.linear_value_head_dim = 4;
  // 2 heads x (4 x 8 x 4 + 2 x 64 x (8 + 4)) = 2 x (128 + 1,536) = 3,328.
  EXPECT_DOUBLE_EQ(forward_flops_per_token(m, 128).linear_attention_core_flop, 3328);
}

TEST(SpeedModel, MambaFlopsByHand) {
  // The tiny model with a Mamba-2 mixer beside the attention of each layer (hand-built): 4 heads
  // of 16 (d_inner 64), 1 group, d_state 16, width 4. Weights per layer: in_proj 64 x (2 x 64 +
  // 2 x 16 + 4) = 10,496, conv (64 + 32) x 4 = 384, out_proj 64 x 64 = 4,096: 14,976.
  ModelShape m = tiny_dense();
  m.mamba_layers = 2;
  m.mamba_heads = 4, m.mamba_head_dim = 16, m.mamba_groups = 1, m.mamba_state_size = 16;
  m.mamba_conv_kernel = 4;
  m.mamba_params = 14'976;
  ForwardFlops f = forward_flops_per_token(m, 128);
  // Linear: 163,840 + 2 x 2 x 14,976 = 223,744.
  EXPECT_DOUBLE_EQ(f.layer_matmul_flop, 223'744);
  // Scan per token and layer, Q = 128: 1 x 2 x 128 x 16 = 4,096 plus 4 x (2 x 128 x 16 +
  // 4 x 16 x 16 + 2 x 16 x 16 / 128) = 4 x 5,124 = 20,496: 24,592; two layers 49,184.
  EXPECT_DOUBLE_EQ(f.mamba_core_flop, 49'184);
  EXPECT_DOUBLE_EQ(f.total(), 223'744 + 12'800 + 32'768 + 49'184);
}

TEST(SpeedModel, SparseAttentionFlopsByHand) {
  // The tiny model with a lightning indexer (hand-built): 2 heads of 8, top 32; weights
  // 64 x (2 x 8 + 8 + 2) = 1,664 per layer. s = 128.
  ModelShape m = tiny_dense();
  m.indexer_heads = 2, m.indexer_head_dim = 8, m.indexer_top_k = 32;
  m.indexer_params = 1'664;
  ForwardFlops f = forward_flops_per_token(m, 128);
  // Linear: 163,840 + 2 x 2 x 1,664 = 170,496.
  EXPECT_DOUBLE_EQ(f.layer_matmul_flop, 170'496);
  // Main attention: 32 - 32^2 / 256 = 28 keys: 4 x 4 x 16 x 28 x 2 layers = 14,336.
  EXPECT_DOUBLE_EQ(f.attention_core_flop, 14'336);
  // Indexer: every causal pair (64 keys): 2 x 2 x 8 x 64 x 2 layers = 4,096.
  EXPECT_DOUBLE_EQ(f.indexer_core_flop, 4'096);
}

// The bundled gpt-oss-20b on H200s as gpus.yaml gives them.
const ModelShape& gpt_oss() {
  return testing::bundled_catalog().catalog.find_model("gpt-oss-20b")->shape;
}

ClusterShape h200(int gpus) {
  ClusterShape c;
  c.gpu = *testing::bundled_catalog().catalog.find_gpu("H200");
  c.gpus = gpus;
  c.per_node = 8;
  return c;
}

Layout layout_of(int tp, int pp, int ep, int mbs = 1) {
  Layout l;
  l.tp = tp, l.pp = pp, l.ep = ep, l.rows_per_microbatch = mbs;
  l.sequence_parallel = tp > 1;
  l.max_tokens_per_gpu = 8192 * mbs;
  l.dispatcher = ep > 1 ? "alltoall" : "";
  return l;
}

double sum_of_terms(const SpeedEstimate& e) {
  double sum = 0;
  for (const StepTimeTerm& t : e.terms) sum += t.seconds;
  return sum;
}

TEST(SpeedModel, TermsAddUpToTheStepTime) {
  SpeedEstimate e = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, layout_of(2, 2, 2), {});
  EXPECT_GT(e.step_time_s, 0);
  EXPECT_NEAR(sum_of_terms(e), e.step_time_s, 1e-9 * e.step_time_s);
  EXPECT_NEAR(e.tokens_per_s_per_gpu, 128.0 * 8192 / (e.step_time_s * 8), 1e-6);
  EXPECT_DOUBLE_EQ(
      predict_tokens_per_s_per_gpu(gpt_oss(), h200(8), PlanWorkload{}, layout_of(2, 2, 2), {}),
      e.tokens_per_s_per_gpu);
  EXPECT_GT(term(e, "TP communication"), 0);
  EXPECT_GT(term(e, "EP communication"), 0);
  EXPECT_GT(term(e, "pipeline bubble"), 0);
}

TEST(SpeedModel, OptimizerStepReadsAndWritesTheRanksShard) {
  // DP 8 x EP 8 on 8 GPUs: dense weights sharded 8 ways, each GPU's experts (E / 8) unsharded
  // (expert DP 1); 30 B per parameter at 4,800 GB/s x the prior's 0.8.
  ClusterShape c = h200(8);
  c.gpu.hbm_gb_per_s = 4800;
  const ModelShape& m = gpt_oss();
  double dense = m.dense_params_per_layer() * m.layers + static_cast<double>(m.output_params) +
                 static_cast<double>(m.embedding_params);
  double experts = m.expert_params_per_layer() * m.layers / 8;
  SpeedEstimate e = estimate_speed(m, c, PlanWorkload{}, layout_of(1, 1, 8), {});
  EXPECT_NEAR(term(e, "optimizer step"), (dense / 8 + experts) * 30 / (4800e9 * 0.8), 1e-9);
}

TEST(SpeedModel, DoublingDataParallelHalvesEachGpusGemms) {
  SpeedEstimate eight = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, layout_of(1, 1, 8), {});
  SpeedEstimate sixteen =
      estimate_speed(gpt_oss(), h200(16), PlanWorkload{}, layout_of(1, 1, 8), {});
  EXPECT_NEAR(term(sixteen, "GEMMs"), term(eight, "GEMMs") / 2, 1e-9);
  EXPECT_NEAR(sixteen.flop_per_step_per_gpu, eight.flop_per_step_per_gpu / 2, 1);
}

TEST(SpeedModel, PipelineBubbleShrinksWithVirtualStages) {
  Layout plain = layout_of(1, 4, 1);
  SpeedEstimate flat = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, plain, {});
  plain.vpp = 2;
  SpeedEstimate interleaved = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, plain, {});
  EXPECT_LT(term(interleaved, "pipeline bubble"), 0.6 * term(flat, "pipeline bubble"));
  EXPECT_EQ(term(estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, layout_of(1, 1, 1), {}),
                 "pipeline bubble"),
            0);
}

TEST(SpeedModel, TpOverlapHidesCommunicationBehindGemms) {
  PlanWorkload overlapped;
  overlapped.tp_comm_overlap = true;
  SpeedEstimate plain = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, layout_of(4, 1, 1), {});
  SpeedEstimate hidden = estimate_speed(gpt_oss(), h200(8), overlapped, layout_of(4, 1, 1), {});
  EXPECT_LT(term(hidden, "TP communication"), term(plain, "TP communication"));
  EXPECT_GT(hidden.tokens_per_s_per_gpu, plain.tokens_per_s_per_gpu);
}

TEST(SpeedModel, SharedExpertOverlapHidesAllToAllOnlyWhenSwitchedOn) {
  // Qwen3.5-122B-A10B has a shared expert; EP 8 on 8 H200. Without --moe-shared-expert-overlap
  // the whole all-to-all is exposed (raw time x micro-batches); with it, the shared expert's
  // GEMMs hide part of it.
  const Model* model = testing::bundled_catalog().catalog.find_model("Qwen3.5-122B-A10B");
  ASSERT_NE(model, nullptr);
  const ModelShape& qwen = model->shape;
  ASSERT_GT(qwen.shared_expert_params, 0);
  PlanWorkload overlapped;
  overlapped.shared_expert_overlap = true;
  SpeedEstimate plain = estimate_speed(qwen, h200(8), PlanWorkload{}, layout_of(1, 1, 8), {});
  SpeedEstimate hidden = estimate_speed(qwen, h200(8), overlapped, layout_of(1, 1, 8), {});
  EXPECT_GT(term(plain, "EP communication"), 0);
  EXPECT_LT(term(hidden, "EP communication"), term(plain, "EP communication"));
  EXPECT_GT(hidden.tokens_per_s_per_gpu, plain.tokens_per_s_per_gpu);
  // gpt-oss has no shared expert: the switch changes nothing.
  SpeedEstimate no_shared = estimate_speed(gpt_oss(), h200(8), overlapped, layout_of(1, 1, 8), {});
  EXPECT_DOUBLE_EQ(
      no_shared.step_time_s,
      estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, layout_of(1, 1, 8), {}).step_time_s);
}

TEST(SpeedModel, EpAllToAllOverlapHidesUnderTheOtherMicroBatchExceptUnpairedOnes) {
  // gpt-oss-20b, EP 8 on 8 H200, PP 1: m = 128 / 8 = 16 micro-batches, of which the first
  // forward and the last backward have no partner: unpaired share 1 / 16. A paired micro-batch
  // exposes what its all-to-all exceeds one micro-batch's compute by (GEMMs, attention,
  // memory-bound work and kernel costs, forward and backward).
  PlanWorkload overlapped;
  overlapped.ep_a2a_overlap = true;
  Layout l = layout_of(1, 1, 8);
  SpeedEstimate plain = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, l, {}, true);
  SpeedEstimate hidden = estimate_speed(gpt_oss(), h200(8), overlapped, l, {}, true);
  const double m = 16, unpaired = 1 / m;
  double raw = term(plain, "EP communication") / m;
  double compute = (term(plain, "GEMMs") + term(plain, "attention kernels") +
                    term(plain, "memory-bound kernels") + term(plain, "kernel overhead")) /
                   m;
  ASSERT_GT(raw, 0);
  double exposed = unpaired * raw + (1 - unpaired) * std::max(0.0, raw - compute);
  EXPECT_NEAR(term(hidden, "EP communication"), m * exposed, 1e-9 * m * raw);
  EXPECT_LT(term(hidden, "EP communication"), term(plain, "EP communication"));
  EXPECT_GT(hidden.tokens_per_s_per_gpu, plain.tokens_per_s_per_gpu);
  // Everything else is the same step.
  EXPECT_DOUBLE_EQ(term(hidden, "GEMMs"), term(plain, "GEMMs"));
  // Pipelined with VPP, the warm-up and cool-down leave more micro-batches unpaired:
  // 1 + 2 (PP - 1) + (VPP - 1) PP = 5 of m x VPP = 32 x 2 chunk passes (m = 128 / DP 4).
  Layout piped = layout_of(1, 2, 8);
  piped.vpp = 2;
  SpeedEstimate piped_plain = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, piped, {}, true);
  SpeedEstimate piped_hidden = estimate_speed(gpt_oss(), h200(8), overlapped, piped, {}, true);
  const double piped_m = 128.0 / 4, piped_unpaired = 5 / (piped_m * 2);
  double piped_raw = term(piped_plain, "EP communication") / piped_m;
  double piped_compute =
      (term(piped_plain, "GEMMs") + term(piped_plain, "attention kernels") +
       term(piped_plain, "memory-bound kernels") + term(piped_plain, "kernel overhead")) /
      piped_m;
  EXPECT_NEAR(term(piped_hidden, "EP communication"),
              piped_m * (piped_unpaired * piped_raw +
                         (1 - piped_unpaired) * std::max(0.0, piped_raw - piped_compute)),
              1e-9 * piped_m * piped_raw);
}

TEST(SpeedModel, EachFlexBackendScalesItsOwnShare) {
  // Under flex, HybridEP's fitted factor scales the whole EP all-to-all; DeepEP scales only the
  // share that crosses the network, by the copies it saves (deepep_network_share), so inside one
  // 8-GPU node DeepEP costs what alltoall does; alltoall takes neither.
  SpeedParameters p;
  p.hybridep_dispatcher_factor = 0.25;
  Layout alltoall = layout_of(1, 1, 8);
  Layout flex = alltoall;
  flex.dispatcher = "flex";
  PlanWorkload hybridep;
  hybridep.hybridep = true;
  auto ep_s = [&](int gpus, const PlanWorkload& w, const Layout& l) {
    return term(estimate_speed(gpt_oss(), h200(gpus), w, l, p, true), "EP communication");
  };
  double base = ep_s(8, PlanWorkload{}, alltoall);
  ASSERT_GT(base, 0);
  EXPECT_NEAR(ep_s(8, PlanWorkload{}, flex), base, 1e-9 * base);
  EXPECT_NEAR(ep_s(8, hybridep, flex), 0.25 * base, 1e-9 * base);
  EXPECT_NEAR(ep_s(8, hybridep, alltoall), base, 1e-9 * base);
  // EP 16 over two nodes: the network share (8 of 16 peers, at H200's 50 GB/s against NVLink's
  // 450 GB/s) sets the time, and DeepEP sends 0.475 of alltoall's network copies (gpt-oss-20b's
  // 32 experts, top 4), so it takes a little more than that share of alltoall's time.
  Layout wide = layout_of(1, 1, 16);
  Layout wide_flex = wide;
  wide_flex.dispatcher = "flex";
  double wide_base = ep_s(16, PlanWorkload{}, wide);
  double wide_deepep = ep_s(16, PlanWorkload{}, wide_flex);
  EXPECT_LT(wide_deepep, 0.5 * wide_base);
  EXPECT_GT(wide_deepep, deepep_network_share(32, 4, 2) * wide_base);
  EXPECT_NEAR(ep_s(16, hybridep, wide_flex), 0.25 * wide_base, 1e-9 * wide_base);
}

TEST(SpeedModel, PricingEveryDispatcherAtOnceMatchesPricingEachAlone) {
  // predict_per_dispatcher shares the compute between dispatchers and redoes it only for
  // HybridEP's permutation: each figure must be what one prediction with that dispatcher gives,
  // with the EP-overlap and HybridEP settings whose terms read the dispatcher too.
  SpeedParameters p;
  p.hybridep_dispatcher_factor = 0.5;
  const std::vector<std::string> dispatchers = {"alltoall", "flex", "allgather"};
  PlanWorkload hybridep;
  hybridep.hybridep = true;
  PlanWorkload overlap;
  overlap.ep_a2a_overlap = true;
  for (const PlanWorkload& w : {PlanWorkload{}, hybridep, overlap}) {
    for (int gpus : {8, 16}) {
      Layout l = layout_of(1, 2, gpus);
      l.vpp = 2;
      const std::vector<double> all =
          predict_per_dispatcher(gpt_oss(), h200(gpus), w, l, dispatchers, p);
      ASSERT_EQ(all.size(), dispatchers.size());
      for (std::size_t i = 0; i < dispatchers.size(); ++i) {
        Layout one = l;
        one.dispatcher = dispatchers[i];
        const double alone = predict_tokens_per_s_per_gpu(gpt_oss(), h200(gpus), w, one, p);
        EXPECT_NEAR(all[i], alone, 1e-9 * alone) << dispatchers[i] << " on " << gpus;
      }
      // The figures differ where the model says the dispatcher matters: allgather moves every
      // token of the group.
      EXPECT_NE(all[0], all[2]) << gpus;
    }
  }
}

TEST(SpeedModel, ASustainedClockSlowsTheTensorCoresNotHbm) {
  // GB200 at half its datasheet clock: attention's matmuls and exponentials take twice as long,
  // the memory-bound kernels the same; an H200 ignores GB200's factor.
  ClusterShape gb200 = h200(8);
  gb200.gpu = *testing::bundled_catalog().catalog.find_gpu("GB200");
  gb200.per_node = 4;
  SpeedParameters half;
  half.sustained_clock_gb200 = 0.5;
  Layout l = layout_of(1, 1, 8);
  SpeedEstimate full = estimate_speed(gpt_oss(), gb200, PlanWorkload{}, l, {}, true);
  SpeedEstimate slow = estimate_speed(gpt_oss(), gb200, PlanWorkload{}, l, half, true);
  EXPECT_NEAR(term(slow, "attention kernels"), 2 * term(full, "attention kernels"),
              1e-9 * term(full, "attention kernels"));
  EXPECT_DOUBLE_EQ(term(slow, "memory-bound kernels"), term(full, "memory-bound kernels"));
  EXPECT_GT(term(slow, "GEMMs"), term(full, "GEMMs"));
  EXPECT_DOUBLE_EQ(sustained_clock(half, "GB200"), 0.5);
  EXPECT_DOUBLE_EQ(sustained_clock(half, "H200"), 1.0);
  EXPECT_DOUBLE_EQ(sustained_clock(half, "VR200"), 1.0);  // a type without a factor
  EXPECT_DOUBLE_EQ(estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, l, half).step_time_s,
                   estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, l, {}).step_time_s);
}

TEST(SpeedModel, AFusedExpertMlpSavesItsActivationAndCastBytes) {
  // gpt-oss-20b in FP8 on 8 H200, EP 8: fusing the experts' first GEMM, SwiGLU and its
  // quantization removes their memory-bound bytes and nothing else.
  PlanWorkload fp8;
  fp8.precision = Precision::kFp8;
  PlanWorkload fused = fp8;
  fused.fused_expert_mlp = true;
  Layout l = layout_of(1, 1, 8);
  SpeedEstimate plain = estimate_speed(gpt_oss(), h200(8), fp8, l, {}, true);
  SpeedEstimate faster = estimate_speed(gpt_oss(), h200(8), fused, l, {}, true);
  // By hand: each GPU's experts receive 8,192 tokens x top-4 x the default natural-routing
  // imbalance 1.3 = 42,598.4 routed copies per micro-batch and layer; per copy the fusion saves
  // SwiGLU's 6 x 2,880 bytes forward and twice that backward, the second GEMM's input cast
  // (4 x 2,880: read BF16, write the row-wise and column-wise copies) forward and the first
  // GEMM's output-gradient cast (4 x 5,760) backward: 86,400 bytes. 24 MoE layers,
  // 16 micro-batches, at 4,800 GB/s x 0.8.
  double saved = 16 * 24 * 42'598.4 * 86'400 / (4800e9 * 0.8);
  EXPECT_NEAR(term(plain, "memory-bound kernels") - term(faster, "memory-bound kernels"), saved,
              1e-6 * saved);
  EXPECT_DOUBLE_EQ(term(faster, "GEMMs"), term(plain, "GEMMs"));
  EXPECT_GT(faster.tokens_per_s_per_gpu, plain.tokens_per_s_per_gpu);
}

TEST(SpeedModel, HybridEpPermutesInItsDispatch) {
  // gpt-oss-20b on 8 H200, EP 8: HybridEP's dispatch_with_permute and combine_with_unpermute
  // remove the permute and unpermute kernels and their bytes; DeepEP and alltoall keep them.
  PlanWorkload hybridep;
  hybridep.hybridep = true;
  Layout alltoall = layout_of(1, 1, 8);
  Layout flex = alltoall;
  flex.dispatcher = "flex";
  SpeedEstimate plain = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, alltoall, {}, true);
  SpeedEstimate deepep = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, flex, {}, true);
  SpeedEstimate fused = estimate_speed(gpt_oss(), h200(8), hybridep, flex, {}, true);
  // By hand: 42,598.4 routed copies per micro-batch and layer (as above); permute and unpermute
  // each read and write a copy's 2,880 BF16 values, 8 x 2,880 bytes forward and twice that
  // backward; 24 MoE layers, 16 micro-batches, at 4,800 GB/s x 0.8. Two kernels fewer per MoE
  // layer and pass, 3 passes, at 4 us.
  double saved = 16 * 24 * 42'598.4 * 3 * 8 * 2'880 / (4800e9 * 0.8);
  EXPECT_NEAR(term(plain, "memory-bound kernels") - term(fused, "memory-bound kernels"), saved,
              1e-6 * saved);
  EXPECT_NEAR(term(plain, "kernel overhead") - term(fused, "kernel overhead"),
              16 * 24 * 2 * 3 * 4e-6, 1e-12);
  EXPECT_DOUBLE_EQ(term(deepep, "memory-bound kernels"), term(plain, "memory-bound kernels"));
  EXPECT_DOUBLE_EQ(term(fused, "GEMMs"), term(plain, "GEMMs"));
}

TEST(SpeedModel, AllgatherDispatcherGathersEveryTokenOfTheGroup) {
  // gpt-oss-20b on 8 H200, TP1 EP8, 16 micro-batches of one 8,192-token row, 24 MoE layers. The
  // allgather dispatcher gathers the group's 8 x 8,192 tokens of 2,880 BF16 values
  // (377,487,360 bytes) to every rank and reduce-scatters the outputs back: a ring sending 7/8 of
  // it over NVLink at 450 GB/s x 0.7, plus 15 us, twice per MoE layer in forward and twice in
  // backward. The routing's imbalance does not enter: every rank receives every token.
  Layout alltoall = layout_of(1, 1, 8);
  Layout allgather = alltoall;
  allgather.dispatcher = "allgather";
  PlanWorkload balanced;
  balanced.forced_balanced_routing = true;
  SpeedEstimate gathered = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, allgather, {}, true);
  SpeedEstimate gathered_balanced =
      estimate_speed(gpt_oss(), h200(8), balanced, allgather, {}, true);
  SpeedEstimate routed = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, alltoall, {}, true);
  double one = 15e-6 + 7.0 / 8 * 377'487'360 / (450e9 * 0.7);
  double expected = 16 * 24 * 2 * 2 * one;
  EXPECT_NEAR(term(gathered, "EP communication"), expected, 1e-9 * expected);
  EXPECT_DOUBLE_EQ(term(gathered_balanced, "EP communication"), term(gathered, "EP communication"));
  // The all-to-all sends only the top-4 routed copies (x 1.3 imbalance): 8/(4 x 1.3) = 1.54 times
  // fewer bytes.
  EXPECT_LT(term(routed, "EP communication"), term(gathered, "EP communication"));
  EXPECT_DOUBLE_EQ(term(routed, "GEMMs"), term(gathered, "GEMMs"));
}

TEST(SpeedModel, Bf16GradientsHalveTheReduceScatter) {
  // gpt-oss-20b on 16 H200, TP1 PP1 EP8, DP 16: the gradients' reduce-scatter crosses the network
  // (two nodes) and is not hidden under one micro-batch's backward only in part, so halving its
  // bytes (BF16 instead of FP32 gradients) cuts the exposed DP time; the all-gather stays.
  PlanWorkload bf16_grads;
  bf16_grads.grad_reduce_in_fp32 = false;
  Layout l = layout_of(1, 1, 8);
  SpeedEstimate fp32 = estimate_speed(gpt_oss(), h200(16), PlanWorkload{}, l, {}, true);
  SpeedEstimate bf16 = estimate_speed(gpt_oss(), h200(16), bf16_grads, l, {}, true);
  EXPECT_LT(term(bf16, "DP communication"), term(fp32, "DP communication"));
  EXPECT_DOUBLE_EQ(term(bf16, "GEMMs"), term(fp32, "GEMMs"));
  EXPECT_GT(bf16.tokens_per_s_per_gpu, fp32.tokens_per_s_per_gpu);
}

TEST(SpeedModel, VirtualPipelineHidesEachSendUnderTheNextChunk) {
  // gpt-oss-20b on 16 H200 at PP2 (EP8, DP8: 16 micro-batches), each stage one node, so every
  // send crosses the network. With VPP2 a send overlaps one chunk's forward (or backward) pass:
  // on H200's links it hides whole, leaving the call latency, 2 x VPP sends a micro-batch.
  Layout v1 = layout_of(1, 2, 8);
  Layout v2 = v1;
  v2.vpp = 2;
  const double m = 16;
  SpeedParameters p;
  SpeedEstimate fast = estimate_speed(gpt_oss(), h200(16), PlanWorkload{}, v2, p, true);
  EXPECT_NEAR(term(fast, "PP communication"), m * 2 * 2 * p.collective_latency_s, 1e-12);
  // At a thousandth of the link's rate each send outlasts its chunk: a micro-batch exposes
  // 2 x VPP sends less the forward and backward it hides under, against 2 sends without VPP.
  p.communication_efficiency = 0.001;
  SpeedEstimate slow1 = estimate_speed(gpt_oss(), h200(16), PlanWorkload{}, v1, p, true);
  SpeedEstimate slow2 = estimate_speed(gpt_oss(), h200(16), PlanWorkload{}, v2, p, true);
  double compute = term(slow2, "GEMMs") + term(slow2, "attention kernels") +
                   term(slow2, "memory-bound kernels") + term(slow2, "kernel overhead");
  EXPECT_NEAR(term(slow2, "PP communication"), 2 * term(slow1, "PP communication") - compute,
              1e-9 * term(slow1, "PP communication"));
}

TEST(SpeedModel, Fp8SpeedsGemmsNotAttention) {
  PlanWorkload fp8;
  fp8.precision = Precision::kFp8;
  SpeedEstimate bf16 = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, layout_of(1, 1, 8), {});
  SpeedEstimate low = estimate_speed(gpt_oss(), h200(8), fp8, layout_of(1, 1, 8), {});
  EXPECT_LT(term(low, "GEMMs"), term(bf16, "GEMMs"));
  EXPECT_DOUBLE_EQ(term(low, "attention kernels"), term(bf16, "attention kernels"));
  EXPECT_GT(low.tokens_per_s_per_gpu, bf16.tokens_per_s_per_gpu);
}

TEST(SpeedModel, ForcedBalancedRoutingBeatsNaturalRouting) {
  PlanWorkload balanced;
  balanced.forced_balanced_routing = true;
  SpeedParameters p;
  p.routing_imbalance = 2;
  SpeedEstimate natural = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, layout_of(1, 1, 8), p);
  SpeedEstimate forced = estimate_speed(gpt_oss(), h200(8), balanced, layout_of(1, 1, 8), p);
  EXPECT_GT(forced.tokens_per_s_per_gpu, natural.tokens_per_s_per_gpu);
  EXPECT_LT(term(forced, "EP communication"), term(natural, "EP communication"));
}

TEST(SpeedModel, FullRecomputeAddsAForward) {
  Layout l = layout_of(1, 1, 8);
  SpeedEstimate none = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, l, {});
  l.recompute = Recompute{"full", "uniform", 1};
  SpeedEstimate full = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, l, {});
  l.recompute = Recompute{"selective", "", std::nullopt};
  SpeedEstimate selective = estimate_speed(gpt_oss(), h200(8), PlanWorkload{}, l, {});
  EXPECT_EQ(term(none, "recompute"), 0);
  EXPECT_GT(term(full, "recompute"), term(selective, "recompute"));
  EXPECT_GT(term(selective, "recompute"), 0);
  EXPECT_LT(full.tokens_per_s_per_gpu, none.tokens_per_s_per_gpu);
}

TEST(SpeedModel, ContextParallelOnShortRowsDoesNotPay) {
  // CP 8 on 8,192-token rows leaves 1,024 tokens per GPU: smaller GEMMs, the same kernels, a K/V
  // ring per attention layer. Per GPU it must not beat the same GPUs used as data parallelism.
  Layout cp8 = layout_of(1, 1, 8, 4);
  cp8.cp = 8;
  cp8.max_tokens_per_gpu = 4096;
  SpeedEstimate split = estimate_speed(gpt_oss(), h200(64), PlanWorkload{}, cp8, {});
  SpeedEstimate dp = estimate_speed(gpt_oss(), h200(64), PlanWorkload{}, layout_of(1, 1, 8), {});
  EXPECT_LT(split.tokens_per_s_per_gpu, dp.tokens_per_s_per_gpu);
}

TEST(SpeedModel, TpCollectivesCountBlocksNotLayers) {
  // The tiny model's 2 attention and 2 MLP blocks on 4 layers of one block each (as Nemotron-H
  // arranges its layers) run the same 2 x 4 TP all-gathers and reduce-scatters per pass as on 2
  // layers of two blocks.
  ModelShape two = tiny_dense();
  ModelShape four = two;
  four.layers = 4;
  Layout tp2 = layout_of(2, 1, 1);
  double a = term(estimate_speed(two, h200(8), PlanWorkload{}, tp2, {}), "TP communication");
  double b = term(estimate_speed(four, h200(8), PlanWorkload{}, tp2, {}), "TP communication");
  EXPECT_GT(a, 0);
  EXPECT_DOUBLE_EQ(a, b);
}

// Hand-built (not a real model): 8 Mamba-2 layers and 8 ungated MLP layers, h = 2,048, Mamba-2
// 64 heads of 64 (d_inner 4,096), 8 groups, d_state 128.
ModelShape mamba_mlp() {
  ModelShape m;
  m.name = "mamba-mlp";
  m.layers = 16;
  m.hidden_size = 2048;
  m.vocab_size = 32000;
  m.mamba_layers = 8;
  m.mamba_heads = 64, m.mamba_head_dim = 64, m.mamba_groups = 8, m.mamba_state_size = 128;
  m.mamba_conv_kernel = 4;
  // in_proj 2,048 x (8,192 + 2,048 + 64) + conv 6,144 x 4 + out_proj 4,096 x 2,048.
  m.mamba_params = 2048LL * 10304 + 6144 * 4 + 4096LL * 2048;
  m.gated_mlp = false;
  m.dense_mlp_layers = 8;
  m.dense_ffn_hidden_size = 8192;
  m.dense_mlp_params = 2LL * 2048 * 8192;
  m.embedding_params = m.output_params = 32000LL * 2048;
  m.active_params = 8 * (m.mamba_params + m.dense_mlp_params) + m.output_params;
  return m;
}

TEST(SpeedModel, ContextParallelMambaPaysItsAllToAll) {
  // No softmax attention: the only CP communication is Mamba-2's all-to-all, not hidden.
  Layout cp2 = layout_of(1, 1, 1);
  cp2.cp = 2;
  SpeedEstimate e = estimate_speed(mamba_mlp(), h200(16), PlanWorkload{}, cp2, {});
  EXPECT_GT(term(e, "CP communication"), 0);
  EXPECT_NEAR(sum_of_terms(e), e.step_time_s, 1e-9 * e.step_time_s);
  EXPECT_GT(term(e, "attention kernels"), 0);  // the SSD scan
  SpeedEstimate no_cp =
      estimate_speed(mamba_mlp(), h200(8), PlanWorkload{}, layout_of(1, 1, 1), {});
  EXPECT_EQ(term(no_cp, "CP communication"), 0);
}

TEST(SpeedModel, ContextParallelSparseAttentionAllGathersItsKeys) {
  // Sparse attention gathers every key before the top-k: its CP time is exposed, where the dense
  // model's K/V ring on 8,192-token rows hides under attention.
  ModelShape dense = gpt_oss();
  dense.sliding_window_layers = 0;
  ModelShape sparse = dense;
  sparse.indexer_heads = 64, sparse.indexer_head_dim = 128, sparse.indexer_top_k = 2048;
  sparse.indexer_params = 2880LL * (64 * 128 + 128 + 64);
  Layout cp2 = layout_of(1, 1, 8);
  cp2.cp = 2;
  SpeedEstimate d = estimate_speed(dense, h200(16), PlanWorkload{}, cp2, {});
  SpeedEstimate s = estimate_speed(sparse, h200(16), PlanWorkload{}, cp2, {});
  EXPECT_GT(term(s, "CP communication"), term(d, "CP communication"));
  EXPECT_NEAR(sum_of_terms(s), s.step_time_s, 1e-9 * s.step_time_s);
}

}  // namespace
}  // namespace openrecipes
