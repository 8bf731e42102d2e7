#include "plan/speed_model.h"

#include <gtest/gtest.h>

#include <string>

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

ClusterShape cluster(int gpus) {
  ClusterShape c;
  c.gpu.type = "T";
  c.gpu.peak_bf16_dense_flop_per_s = 1e12;
  c.gpu.peak_fp8_dense_flop_per_s = 2e12;
  c.gpu.nvlink_gb_per_s = 100;
  c.gpu.network_gb_per_s = 10;
  c.gpu.usd_per_gpu_hour = 1;
  c.gpu.per_node = 8;
  c.gpus = gpus;
  c.per_node = 8;
  return c;
}

PlanWorkload workload(std::int64_t row_tokens = 128, std::int64_t global_batch = 4) {
  PlanWorkload w;
  w.row_tokens = row_tokens;
  w.global_batch = global_batch;
  return w;
}

SpeedParameters plain() {
  SpeedParameters p;
  p.matmul_efficiency = 0.5;
  p.attention_efficiency = 0.25;
  p.communication_efficiency = 1;
  return p;
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

TEST(SpeedModel, StepTimeOfOneGpuByHand) {
  // One GPU, 4 rows of 128 tokens, one row per micro-batch: m = 4. Per micro-batch, forward +
  // backward = 3 x forward: matmuls 128 x 176,640 x 3 / (1e12 x 0.5) = 1.3565952e-4 s, attention
  // 128 x 32,768 x 3 / (1e12 x 0.25) = 5.0331648e-5 s. Step = 4 x 1.85991168e-4 s.
  Layout layout;
  SpeedEstimate e = estimate_speed(tiny_dense(), cluster(1), workload(), layout, plain());
  EXPECT_NEAR(e.step_time_s, 7.43964672e-4, 1e-15);
  EXPECT_NEAR(term(e, "matmul compute"), 4 * 1.3565952e-4, 1e-15);
  EXPECT_NEAR(term(e, "attention compute"), 4 * 5.0331648e-5, 1e-15);
  EXPECT_DOUBLE_EQ(e.flop_per_step_per_gpu, 4 * 128 * 209408.0 * 3);
  EXPECT_NEAR(e.tokens_per_s_per_gpu, 512 / 7.43964672e-4, 1e-6);
  double sum = 0;
  for (const StepTimeTerm& t : e.terms) sum += t.seconds;
  EXPECT_NEAR(sum, e.step_time_s, 1e-15);
}

TEST(SpeedModel, DoublingDataParallelHalvesComputePerGpu) {
  Layout layout;
  SpeedEstimate two = estimate_speed(tiny_dense(), cluster(2), workload(128, 8), layout, plain());
  SpeedEstimate four = estimate_speed(tiny_dense(), cluster(4), workload(128, 8), layout, plain());
  EXPECT_DOUBLE_EQ(term(four, "matmul compute"), term(two, "matmul compute") / 2);
  EXPECT_DOUBLE_EQ(four.flop_per_step_per_gpu, two.flop_per_step_per_gpu / 2);
  EXPECT_GT(term(two, "DP communication"), 0);
}

TEST(SpeedModel, PipelineBubbleShrinksWithMicroBatchesAndVirtualStages) {
  Layout layout;
  layout.pp = 2;
  ModelShape m = tiny_dense(4);
  SpeedEstimate few = estimate_speed(m, cluster(2), workload(128, 4), layout, plain());
  SpeedEstimate many = estimate_speed(m, cluster(2), workload(128, 16), layout, plain());
  double few_share = term(few, "pipeline bubble") / few.step_time_s;
  double many_share = term(many, "pipeline bubble") / many.step_time_s;
  EXPECT_GT(few_share, 0);
  EXPECT_LT(many_share, few_share);
  // (PP - 1) / (VPP x m) of the busy time: 1 / 4 with 4 micro-batches.
  EXPECT_NEAR(term(few, "pipeline bubble") /
                  (few.step_time_s - term(few, "pipeline bubble") - term(few, "DP communication")),
              0.25, 1e-12);
  layout.vpp = 2;
  SpeedEstimate interleaved = estimate_speed(m, cluster(2), workload(128, 4), layout, plain());
  EXPECT_LT(term(interleaved, "pipeline bubble"), term(few, "pipeline bubble"));
  Layout flat;
  EXPECT_DOUBLE_EQ(
      term(estimate_speed(m, cluster(1), workload(), flat, plain()), "pipeline bubble"), 0);
}

TEST(SpeedModel, TensorParallelAddsCommunication) {
  Layout layout;
  EXPECT_DOUBLE_EQ(term(estimate_speed(tiny_dense(), cluster(1), workload(), layout, plain()),
                        "TP communication"),
                   0);
  layout.tp = 2;
  layout.sequence_parallel = true;
  SpeedEstimate e = estimate_speed(tiny_dense(), cluster(2), workload(), layout, plain());
  // Per micro-batch: 2 layers x 2 collectives x 2 (forward, backward) x 2 (AG and RS) x
  // 1/2 x 128 x 64 x 2 B / 100e9 B/s; 4 micro-batches.
  EXPECT_NEAR(term(e, "TP communication"), 4 * 2 * 8 * 0.5 * 128 * 64 * 2 / 100e9, 1e-18);
}

TEST(SpeedModel, Fp8LowersComputeTime) {
  Layout layout;
  PlanWorkload fp8 = workload();
  fp8.precision = Precision::kFp8;
  SpeedEstimate bf16 = estimate_speed(tiny_dense(), cluster(1), workload(), layout, plain());
  SpeedEstimate low = estimate_speed(tiny_dense(), cluster(1), fp8, layout, plain());
  EXPECT_LT(term(low, "matmul compute"), term(bf16, "matmul compute"));
  EXPECT_DOUBLE_EQ(term(low, "attention compute"), term(bf16, "attention compute"));
  EXPECT_GT(low.tokens_per_s_per_gpu, bf16.tokens_per_s_per_gpu);
}

TEST(SpeedModel, LongerRowsRaiseTheAttentionShare) {
  Layout layout;
  SpeedEstimate short_rows =
      estimate_speed(tiny_dense(), cluster(1), workload(128), layout, plain());
  SpeedEstimate long_rows =
      estimate_speed(tiny_dense(), cluster(1), workload(1024), layout, plain());
  EXPECT_GT(term(long_rows, "attention compute") / long_rows.step_time_s,
            term(short_rows, "attention compute") / short_rows.step_time_s);
}

TEST(SpeedModel, FullRecomputeAddsAForwardAndUnitOverheads) {
  Layout layout;
  SpeedParameters p = plain();
  p.recompute_unit_overhead_s = 1e-3;
  ModelShape m = tiny_dense(4);
  SpeedEstimate none = estimate_speed(m, cluster(1), workload(), layout, p);
  layout.recompute = Recompute{"full", "uniform", 1};
  SpeedEstimate one = estimate_speed(m, cluster(1), workload(), layout, p);
  layout.recompute = Recompute{"full", "uniform", 2};
  SpeedEstimate two = estimate_speed(m, cluster(1), workload(), layout, p);
  // Layers' matmuls: 3 -> 4 forwards; the output layer is not recomputed.
  EXPECT_GT(term(one, "matmul compute"), term(none, "matmul compute"));
  EXPECT_DOUBLE_EQ(term(one, "matmul compute"), term(two, "matmul compute"));
  // 4 units vs 2 units per micro-batch, 4 micro-batches.
  EXPECT_NEAR(term(one, "recompute overhead"), 4 * 4e-3, 1e-15);
  EXPECT_NEAR(term(two, "recompute overhead"), 4 * 2e-3, 1e-15);
  EXPECT_GT(two.tokens_per_s_per_gpu, one.tokens_per_s_per_gpu);
}

}  // namespace
}  // namespace openrecipes
