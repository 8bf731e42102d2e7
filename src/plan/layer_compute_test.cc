#include "plan/layer_compute.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

const ModelShape& gpt_oss_20b() {
  return testing::bundled_catalog().catalog.find_model("gpt-oss-20b")->shape;
}

ComputeRates hopper_rates(double kernel_overhead_s = 0) {
  ComputeRates r;
  r.bf16 = gemm_device(989e12, 0.8, 3.35e12, 132, false);
  r.linear = r.bf16;
  r.attention_flop_per_s = 989e12 * 0.5;
  r.exp_per_s = 989e12 / 256;
  r.hbm_bytes_per_s = 3.35e12;
  r.kernel_overhead_s = kernel_overhead_s;
  return r;
}

StageWork whole_model(double rows = 1) {
  StageWork w;
  w.has_output = true;
  w.rows = rows;
  w.row_tokens = 8192;
  return w;
}

TEST(LayerCompute, RoutedTokensPerExpertByHand) {
  // gpt-oss-20b: 32 experts, top-4. One row of 8,192 tokens, TP 1, CP 1, EP 4: 8 local experts,
  // 8,192 x 4 routed copies per GPU, 4,096 per expert; with an imbalance of 1.5, 6,144.
  StageWork w = whole_model();
  w.ep = 4;
  EXPECT_DOUBLE_EQ(micro_batch_compute(gpt_oss_20b(), w, hopper_rates()).tokens_per_expert, 4096);
  w.routing_imbalance = 1.5;
  ComputeTime busy = micro_batch_compute(gpt_oss_20b(), w, hopper_rates());
  EXPECT_DOUBLE_EQ(busy.tokens_per_expert, 6144);
  w.routing_imbalance = 1;
  EXPECT_GT(busy.expert_gemm_fwd_s,
            micro_batch_compute(gpt_oss_20b(), w, hopper_rates()).expert_gemm_fwd_s);
  // CP 2 and TP 2 each halve the GPU's tokens; ETP 2 gathers them back.
  w.cp = 2, w.tp = 2, w.etp = 2;
  EXPECT_DOUBLE_EQ(micro_batch_compute(gpt_oss_20b(), w, hopper_rates()).tokens_per_expert, 2048);
}

TEST(LayerCompute, SplittingRowsWithCpCostsMorePerToken) {
  // CP 8 leaves 1,024 tokens per GPU: the same work in smaller GEMMs and the same number of
  // kernels, so eight GPUs' time exceeds one GPU's on the whole row.
  StageWork one = whole_model();
  StageWork eight = one;
  eight.cp = 8;
  ComputeRates r = hopper_rates(4e-6);
  ComputeTime a = micro_batch_compute(gpt_oss_20b(), one, r);
  ComputeTime b = micro_batch_compute(gpt_oss_20b(), eight, r);
  EXPECT_GT(8 * (b.forward_s(r) + b.backward_s(r)), 1.05 * (a.forward_s(r) + a.backward_s(r)));
  EXPECT_DOUBLE_EQ(a.kernels_fwd, b.kernels_fwd);
}

TEST(LayerCompute, LowPrecisionSpeedsTheDecoderGemmsOnlyAndAddsCasts) {
  ComputeRates bf16 = hopper_rates();
  ComputeRates fp8 = bf16;
  fp8.linear = gemm_device(1979e12, 0.6, 3.35e12, 132, false);
  fp8.linear_input_bytes = 1;
  fp8.low_precision = true;
  ComputeTime a = micro_batch_compute(gpt_oss_20b(), whole_model(), bf16);
  ComputeTime b = micro_batch_compute(gpt_oss_20b(), whole_model(), fp8);
  EXPECT_LT(b.dense_gemm_fwd_s + b.expert_gemm_fwd_s, a.dense_gemm_fwd_s + a.expert_gemm_fwd_s);
  EXPECT_DOUBLE_EQ(b.output_fwd_s, a.output_fwd_s);
  EXPECT_DOUBLE_EQ(b.attention_fwd_s, a.attention_fwd_s);
  EXPECT_GT(b.memory_bound_fwd_s, a.memory_bound_fwd_s);
}

TEST(LayerCompute, SlidingWindowLayersCostLessAttention) {
  // gpt-oss-20b alternates 128-token windows with full attention: the full layers dominate, and
  // the model costs less than if every layer attended to the whole row.
  ModelShape m = gpt_oss_20b();
  ComputeTime windowed = micro_batch_compute(m, whole_model(), hopper_rates());
  m.sliding_window_layers = 0;
  ComputeTime full = micro_batch_compute(m, whole_model(), hopper_rates());
  EXPECT_LT(windowed.attention_fwd_s, 0.6 * full.attention_fwd_s);
  // Backward: 2.5 times the matmuls and the exponentials again, so between 2 and 2.5 times.
  EXPECT_GE(windowed.attention_bwd_s, 1.99 * windowed.attention_fwd_s);
  EXPECT_LE(windowed.attention_bwd_s, 2.5 * windowed.attention_fwd_s);
}

TEST(LayerCompute, OnlyTheLastStageHasTheOutputLayer) {
  StageWork w = whole_model();
  w.has_output = false;
  w.layer_share = 0.5;
  ComputeTime half = micro_batch_compute(gpt_oss_20b(), w, hopper_rates());
  EXPECT_EQ(half.output_fwd_s, 0);
  ComputeTime all = micro_batch_compute(gpt_oss_20b(), whole_model(), hopper_rates());
  EXPECT_NEAR(half.dense_gemm_fwd_s, all.dense_gemm_fwd_s / 2, 1e-12);
}

}  // namespace
}  // namespace openrecipes
