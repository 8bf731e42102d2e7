#include "plan/layer_compute.h"

#include <gtest/gtest.h>

#include "params/model_shape.h"
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

TEST(LayerCompute, GroupedGemmEfficiencySlowsTheRoutedExpertsOnly) {
  // gpt-oss-20b on EP 4: 4,096 tokens per local expert, compute-bound GEMMs, so half the grouped
  // efficiency doubles the experts' GEMM time and leaves the dense GEMMs as they were.
  StageWork w = whole_model();
  w.ep = 4;
  ComputeRates full = hopper_rates(), half = hopper_rates();
  half.grouped_gemm_efficiency = 0.5;
  ComputeTime a = micro_batch_compute(gpt_oss_20b(), w, full);
  ComputeTime b = micro_batch_compute(gpt_oss_20b(), w, half);
  EXPECT_NEAR(b.expert_gemm_fwd_s, 2 * a.expert_gemm_fwd_s, 1e-12);
  EXPECT_NEAR(b.expert_gemm_bwd_s, 2 * a.expert_gemm_bwd_s, 1e-12);
  EXPECT_DOUBLE_EQ(b.dense_gemm_fwd_s, a.dense_gemm_fwd_s);
  EXPECT_DOUBLE_EQ(b.output_fwd_s, a.output_fwd_s);
}

TEST(LayerCompute, OnlyASharedExpertCountsAsSharedExpertTime) {
  // gpt-oss has a router but no shared expert: nothing for --moe-shared-expert-overlap to hide
  // the all-to-all under (the router's GEMM once counted as shared-expert time).
  StageWork w = whole_model();
  w.ep = 4;
  ComputeTime t = micro_batch_compute(gpt_oss_20b(), w, hopper_rates());
  EXPECT_GT(t.dense_gemm_fwd_s, 0);
  EXPECT_EQ(t.shared_expert_fwd_s, 0);
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

// Hand-built (not a real model): 2 Mamba-2 layers and nothing else, h = 1,024, 32 heads of 64
// (d_inner 2,048), 8 groups, d_state 128, convolution width 4, no output layer on the stage.
//   in_proj 1,024 x (2 x 2,048 + 2 x 8 x 128 + 32) = 1,024 x 6,176; conv 4,096 x 4;
//   out_proj 2,048 x 1,024.
ModelShape mamba_only() {
  ModelShape m;
  m.name = "mamba-only";
  m.layers = 2;
  m.hidden_size = 1024;
  m.vocab_size = 32000;
  m.mamba_layers = 2;
  m.mamba_heads = 32;
  m.mamba_head_dim = 64;
  m.mamba_groups = 8;
  m.mamba_state_size = 128;
  m.mamba_conv_kernel = 4;
  m.mamba_params = 1024 * 6176 + 4096 * 4 + 2048 * 1024;
  return m;
}

StageWork no_output(double row_tokens = 8192) {
  StageWork w;
  w.row_tokens = row_tokens;
  return w;
}

TEST(LayerCompute, MambaScanFlopsByHand) {
  // Per token and layer, 32 heads, 8 groups, N = 128, P = 64, Q = 128:
  //   C B^T    8 x 2 x 128 x 128        =   262,144
  //   scores X 32 x 2 x 128 x 64        =   524,288
  //   states   32 x 2 x 128 x 64        =   524,288
  //   passing  32 x 2 x 128 x 64 / 128  =     4,096
  //   outputs  32 x 2 x 128 x 64        =   524,288
  //   sum                                 1,839,104
  EXPECT_DOUBLE_EQ(mamba_scan_flop_per_token(mamba_only(), 32, 8, 8192), 1'839'104);
  // A row shorter than the chunk is one chunk of its own length: Q = 64 gives
  // 8 x 2 x 64 x 128 + 32 x (2 x 64 x 64 + 4 x 128 x 64 + 2 x 128 x 64 / 64)
  // = 131,072 + 32 x (8,192 + 32,768 + 256) = 131,072 + 1,318,912 = 1,449,984.
  EXPECT_DOUBLE_EQ(mamba_scan_flop_per_token(mamba_only(), 32, 8, 64), 1'449'984);
}

TEST(LayerCompute, MambaLayerByHand) {
  const ComputeRates r = hopper_rates();
  const double m = 8192;  // one row, TP 1, CP 1
  ComputeTime t = micro_batch_compute(mamba_only(), no_output(), r);
  // Scan: 2 layers x 8,192 tokens x 1,839,104 FLOP at attention's rate, plus 2 x 8,192 x 32
  // heads x 128 exponentials (one per head and pair of its chunk); backward twice that.
  const double scan = 2 * m * 1'839'104 / r.attention_flop_per_s + 2 * m * 32 * 128 / r.exp_per_s;
  EXPECT_DOUBLE_EQ(t.ssm_fwd_s, scan);
  EXPECT_DOUBLE_EQ(t.ssm_bwd_s, 2 * scan);
  EXPECT_EQ(t.attention_fwd_s, 0);
  EXPECT_EQ(t.gdn_fwd_s, 0);
  // GEMMs: in_proj M 8,192 x N 6,176 x K 1,024 and out_proj M 8,192 x N 1,024 x K 2,048, twice.
  const double gemms =
      2 * (gemm_time_s({m, 6176, 1024, 1}, r.bf16) + gemm_time_s({m, 1024, 2048, 1}, r.bf16));
  EXPECT_DOUBLE_EQ(t.dense_gemm_fwd_s, gemms);
  // Memory-bound bytes per token and layer: norm + residual 10 x 1,024 = 10,240, convolution
  // read + write 4 x 4,096 = 16,384, gated norm (read y and z, write) 6 x 2,048 = 12,288, and the
  // scan's traffic: chunk states 12 x 32 x 64 x 128 / 128 = 24,576, C B^T 8 x 8 x 128 = 8,192,
  // x and y 6 x 2,048 = 12,288, B and C 8 x 8 x 128 = 8,192 (53,248): 92,160.
  EXPECT_DOUBLE_EQ(mamba_scan_bytes_per_token(mamba_only(), 32, 8, 8192), 53'248);
  EXPECT_DOUBLE_EQ(t.memory_bound_fwd_s, 2 * m * 92'160 / r.hbm_bytes_per_s);
  EXPECT_DOUBLE_EQ(t.kernels_fwd, 2 * 12);
  // TP 2 halves the heads and groups on the GPU: the scan halves, in_proj's N halves.
  StageWork tp2 = no_output();
  tp2.tp = 2;
  ComputeTime half = micro_batch_compute(mamba_only(), tp2, r);
  EXPECT_DOUBLE_EQ(half.ssm_fwd_s, scan / 2);
  EXPECT_DOUBLE_EQ(half.dense_gemm_fwd_s, 2 * (gemm_time_s({m, 3088, 1024, 1}, r.bf16) +
                                               gemm_time_s({m, 1024, 1024, 1}, r.bf16)));
}

TEST(LayerCompute, UngatedMlpMovesLessActivation) {
  // An up/down MLP of f = 4,096 (squared ReLU) reads f and writes f per token (4f bytes), a
  // gated one reads gate and up and writes f (6f): 2f = 8,192 bytes less per token and layer.
  ModelShape gated = mamba_only();
  gated.mamba_layers = 0;
  gated.dense_mlp_layers = 2;
  gated.dense_ffn_hidden_size = 4096;
  gated.dense_mlp_params = 3 * 1024 * 4096;
  ModelShape ungated = gated;
  ungated.gated_mlp = false;
  ungated.dense_mlp_params = 2 * 1024 * 4096;
  const ComputeRates r = hopper_rates();
  ComputeTime a = micro_batch_compute(gated, no_output(), r);
  ComputeTime b = micro_batch_compute(ungated, no_output(), r);
  EXPECT_NEAR(a.memory_bound_fwd_s - b.memory_bound_fwd_s, 2 * 8192.0 * 8192 / r.hbm_bytes_per_s,
              1e-15);
  // Ungated: up M 8,192 x N 4,096 x K 1,024 and down M 8,192 x N 1,024 x K 4,096, 2 layers.
  EXPECT_DOUBLE_EQ(b.dense_gemm_fwd_s, 2 * (gemm_time_s({8192, 4096, 1024, 1}, r.bf16) +
                                            gemm_time_s({8192, 1024, 4096, 1}, r.bf16)));
}

TEST(LayerCompute, ParallelHybridSharesOneNormPerLayer) {
  // Each of the 2 layers holds attention and Mamba-2 side by side: one norm and residual
  // (10 h = 10,240 bytes per token) fewer per layer than the two mixers counted apart.
  ModelShape parallel = mamba_only();
  parallel.attention_layers = 2;
  parallel.attention_heads = 8, parallel.kv_heads = 8, parallel.head_dim = 128;
  parallel.attention_params = 4 * 1024 * 1024;
  ModelShape apart = parallel;
  apart.layers = 4;  // the same blocks, each on its own layer
  StageWork w = no_output();
  const ComputeRates r = hopper_rates();
  ComputeTime a = micro_batch_compute(apart, w, r);
  ComputeTime p = micro_batch_compute(parallel, w, r);
  EXPECT_NEAR(a.memory_bound_fwd_s - p.memory_bound_fwd_s, 2 * 8192.0 * 10'240 / r.hbm_bytes_per_s,
              1e-15);
  EXPECT_DOUBLE_EQ(a.ssm_fwd_s, p.ssm_fwd_s);
  EXPECT_DOUBLE_EQ(a.attention_fwd_s, p.attention_fwd_s);
}

// Hand-built: 2 layers of MHA (8 heads of 128) with a lightning indexer of 4 heads of 64 keeping
// the top 2,048 keys; indexer weights 1,024 x (4 x 64 + 64 + 4) = 331,776.
ModelShape sparse_attention() {
  ModelShape m = mamba_only();
  m.mamba_layers = 0;
  m.attention_layers = 2;
  m.attention_heads = 8, m.kv_heads = 8, m.head_dim = 128;
  m.attention_params = 4 * 1024 * 1024;
  m.indexer_heads = 4, m.indexer_head_dim = 64, m.indexer_top_k = 2048;
  m.indexer_params = 1024 * (4 * 64 + 64 + 4);
  return m;
}

TEST(LayerCompute, SparseAttentionByHand) {
  const ComputeRates r = hopper_rates();
  const double m = 8192;
  ComputeTime t = micro_batch_compute(sparse_attention(), no_output(), r);
  // Main attention: 1,792 keys per query (plan/layer_parts.h: 2,048 - 2,048^2 / 16,384) instead
  // of 4,096: pairs 2 layers x 8,192 x 8 heads x 1,792; 4 x 128 FLOP each plus one exponential.
  const double pairs = 2 * m * 8 * 1792;
  EXPECT_DOUBLE_EQ(t.attention_fwd_s,
                   4 * 128 * pairs / r.attention_flop_per_s + pairs / r.exp_per_s);
  // Indexer scoring: every causal pair, 2 x 8,192 x 4,096, at 2 x 4 x 64 FLOP; backward twice.
  const double scoring = 2 * 4 * 64 * (2 * m * 4096) / r.attention_flop_per_s;
  EXPECT_DOUBLE_EQ(t.indexer_fwd_s, scoring);
  EXPECT_DOUBLE_EQ(t.indexer_bwd_s, 2 * scoring);
  // TP 2: the attention heads split, the duplicated indexer does not.
  StageWork tp2 = no_output();
  tp2.tp = 2;
  ComputeTime split = micro_batch_compute(sparse_attention(), tp2, r);
  EXPECT_DOUBLE_EQ(split.indexer_fwd_s, scoring);
  EXPECT_DOUBLE_EQ(split.attention_fwd_s, t.attention_fwd_s / 2);
  // 8 attention + 8 indexer kernels per layer.
  EXPECT_DOUBLE_EQ(t.kernels_fwd, 2 * (8 + 8));
}

TEST(LayerCompute, SelectiveRecomputeRerunsItsModulesForward) {
  // gpt-oss-20b, one 8,192-token row, TP 1, EP 4: 24 layers, each attention and MoE; h = 2,880,
  // expert FFN 2,880 (SwiGLU: read 2f, write f, 6 bytes per element), top-4: 32,768 routed copies.
  StageWork w = whole_model();
  w.ep = 4;
  const ComputeRates r = hopper_rates();
  auto rerun = [&](std::vector<std::string> modules) {
    w.recompute = Recompute{"selective", "", std::nullopt, std::move(modules)};
    return micro_batch_compute(gpt_oss_20b(), w, r);
  };
  w.recompute = Recompute{"full", "uniform", 1};  // full recompute is counted per layer elsewhere
  EXPECT_EQ(micro_batch_compute(gpt_oss_20b(), w, r).selective_recompute_fwd_s, 0);
  const ComputeTime core = rerun({});  // core_attn, Megatron-Core's default
  EXPECT_DOUBLE_EQ(core.selective_recompute_fwd_s, core.attention_fwd_s);
  // moe_act: the activation's bytes again, 24 x 6 x 2,880 x 32,768 over HBM.
  EXPECT_NEAR(rerun({"moe_act"}).selective_recompute_fwd_s,
              24 * 6.0 * 2880 * 32768 / r.hbm_bytes_per_s, 1e-12);
  // layernorm: both norms of each layer read and write 2 h bytes per token.
  EXPECT_NEAR(rerun({"layernorm"}).selective_recompute_fwd_s,
              24 * 2 * 4.0 * 2880 * 8192 / r.hbm_bytes_per_s, 1e-12);
  // moe: the whole layer (grouped GEMMs, router, its memory-bound work) covers moe_act.
  const ComputeTime moe = rerun({"moe"});
  EXPECT_GT(moe.selective_recompute_fwd_s, moe.expert_gemm_fwd_s);
  EXPECT_DOUBLE_EQ(rerun({"moe", "moe_act"}).selective_recompute_fwd_s,
                   moe.selective_recompute_fwd_s);
  // mla_up_proj and mlp find no MLA and no dense MLP in gpt-oss.
  EXPECT_EQ(rerun({"mla_up_proj", "mlp"}).selective_recompute_fwd_s, 0);
}

TEST(LayerCompute, MlaUpProjectionRecomputeByHand) {
  // DeepSeek-V3 (its bundled config): 61 MLA layers, 128 heads of query/key 128 + 64 rotary and
  // value 128, query latent 1,536, key/value latent 512. mla_up_proj reruns, per layer, the
  // query's up-projection (8,192 tokens x 1,536 -> 128 x 192) and the key/value's (x 512 ->
  // 128 x 256), and RoPE on the query's 128 x 64 and the key's 64 rotary channels (read and write,
  // 2 bytes each).
  Problems problems;
  std::optional<ModelShape> m = model_shape_from_file(
      testing::source_dir() + "/models/deepseek-v3/config.json", "DeepSeek-V3", problems);
  ASSERT_TRUE(m);
  ASSERT_TRUE(m->has_mla());
  StageWork w = whole_model();
  w.ep = 8;
  w.recompute = Recompute{"selective", "", std::nullopt, {"mla_up_proj"}};
  const ComputeRates r = hopper_rates();
  GemmShape q{8192, 128 * 192, 1536, 1}, kv{8192, 128 * 256, 512, 1};
  const double expected = 61 * (gemm_time_s(q, r.linear) + gemm_time_s(kv, r.linear)) +
                          61 * 4.0 * (128 + 1) * 64 * 8192 / r.hbm_bytes_per_s;
  EXPECT_NEAR(micro_batch_compute(*m, w, r).selective_recompute_fwd_s, expected, 1e-12);
}

}  // namespace
}  // namespace openrecipes
