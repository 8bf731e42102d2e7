#include "plan/speed_model.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace openrecipes
