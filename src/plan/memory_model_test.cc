#include "plan/memory_model.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/catalog_loader.h"
#include "layout/layout_rules.h"
#include "test_support.h"

namespace openrecipes {
namespace {

std::string source(const std::string& relative) { return testing::source_dir() + "/" + relative; }

/// A tiny dense model worked out by hand: 4 layers, hidden 1024, 8 heads of 128 (MHA), SwiGLU
/// MLP of 4096, vocabulary 32,000, untied.
///   attention 4 x 1024^2 = 4,194,304; MLP 3 x 1024 x 4096 = 12,582,912 per layer;
///   embedding = output = 32,000 x 1024 = 32,768,000;
///   all: 4 x 16,777,216 + 2 x 32,768,000 = 132,644,864 parameters.
ModelShape tiny_dense() {
  ModelShape m;
  m.name = "tiny";
  m.layers = 4;
  m.hidden_size = 1024;
  m.vocab_size = 32000;
  m.attention_heads = 8;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.attention_layers = 4;
  m.dense_mlp_layers = 4;
  m.dense_ffn_hidden_size = 4096;
  m.attention_params = 4 * 1024 * 1024;
  m.dense_mlp_params = 3 * 1024 * 4096;
  m.embedding_params = 32000 * 1024;
  m.output_params = 32000 * 1024;
  return m;
}

/// The tiny model with its MLPs replaced by 8 experts of 512, top-2, no shared expert.
ModelShape tiny_moe() {
  ModelShape m = tiny_dense();
  m.dense_mlp_layers = 0;
  m.dense_ffn_hidden_size = 0;
  m.dense_mlp_params = 0;
  m.moe_layers = 4;
  m.experts = 8;
  m.experts_per_token = 2;
  m.expert_ffn_hidden_size = 512;
  m.expert_params = 3 * 1024 * 512;
  m.router_params = 1024 * 8;
  return m;
}

Gpu gpu(const std::string& type, int memory_gb) {
  Gpu g;
  g.type = type;
  g.memory_gb = memory_gb;
  g.per_node = 8;
  return g;
}

ClusterShape cluster(int gpus, int memory_gb = 80) {
  return {gpu(memory_gb == 141 ? "H200" : "H100", memory_gb), gpus, 8};
}

Layout layout(int tp, int pp, int ep = 1, int etp = 1) {
  Layout l;
  l.tp = tp;
  l.pp = pp;
  l.ep = ep;
  l.etp = etp;
  l.sequence_parallel = tp > 1;
  l.max_tokens_per_gpu = 8192;
  l.rows_per_microbatch = 1;
  return l;
}

Recompute recompute(const std::string& granularity, const std::string& method,
                    std::optional<int> layers) {
  return Recompute{granularity, method, layers};
}

constexpr double kTokens = 8192;

TEST(MemoryModel, TinyDenseByHand) {
  // 8 x H100, TP1 PP1: DP 8, 16 micro-batches of one 8,192-token row, 1 in flight.
  const ModelShape m = tiny_dense();
  const ClusterShape c = cluster(8);
  const Layout l = layout(1, 1);
  ASSERT_TRUE(check_layout(m, c, PlanWorkload{}, l).empty());
  const MemoryEstimate e = estimate_memory(m, c, PlanWorkload{}, l);
  ASSERT_EQ(e.stages.size(), 1u);
  const StageMemory& s = e.peak;
  EXPECT_EQ(s.layers, 4);
  EXPECT_DOUBLE_EQ(s.in_flight_microbatches, 1);
  EXPECT_DOUBLE_EQ(s.weights_bytes, 2.0 * 132'644'864);
  EXPECT_DOUBLE_EQ(s.gradients_bytes, 4.0 * 132'644'864);
  EXPECT_DOUBLE_EQ(s.optimizer_bytes, 12.0 * 132'644'864 / 8);
  // Per token per layer (bytes), h = 1024, a = g = 8, d = 128, f = 4096:
  //   attention: norm input 2h + QKV input 2h = 4,096; Q, K, V 2 x 3 x 1024 = 6,144; output
  //              2 x 1024 = 2,048; log-sum-exp 4 x 8 = 32
  //   MLP:       norm input 2h + fc1 input 2h = 4,096; fc1 output 2 x 2 x 4096 = 16,384;
  //              SwiGLU output 2 x 4096 = 8,192
  //   sum 40,992 (Korthikanti's 34h = 34,816 for a 4h GeLU MLP; SwiGLU of 4h is wider).
  EXPECT_DOUBLE_EQ(s.activations_bytes, 40'992.0 * kTokens * 4);
  EXPECT_DOUBLE_EQ(s.logits_bytes, kTokens * 32000 * 6);
  EXPECT_DOUBLE_EQ(s.total_bytes, s.weights_bytes + s.gradients_bytes + s.optimizer_bytes +
                                      s.activations_bytes + s.logits_bytes);
  EXPECT_DOUBLE_EQ(e.memory_bytes, s.total_bytes);
  EXPECT_DOUBLE_EQ(e.capacity_bytes, 80e9);
  EXPECT_DOUBLE_EQ(e.usable_bytes, 72e9);
  EXPECT_TRUE(e.fits);
  EXPECT_GE(memory_left_out().size(), 5u);
}

TEST(MemoryModel, DoublingTensorParallelHalvesShardedTerms) {
  // 16 GPUs at TP2 keep DP at 8, so every term halves (SP divides the norm and block inputs too).
  const ModelShape m = tiny_dense();
  const MemoryEstimate one = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 1));
  const Layout tp2 = layout(2, 1);
  ASSERT_TRUE(check_layout(m, cluster(16), PlanWorkload{}, tp2).empty());
  const MemoryEstimate two = estimate_memory(m, cluster(16), PlanWorkload{}, tp2);
  EXPECT_DOUBLE_EQ(two.peak.weights_bytes, one.peak.weights_bytes / 2);
  EXPECT_DOUBLE_EQ(two.peak.gradients_bytes, one.peak.gradients_bytes / 2);
  EXPECT_DOUBLE_EQ(two.peak.optimizer_bytes, one.peak.optimizer_bytes / 2);
  EXPECT_DOUBLE_EQ(two.peak.activations_bytes, one.peak.activations_bytes / 2);
  EXPECT_DOUBLE_EQ(two.peak.logits_bytes, one.peak.logits_bytes / 2);

  // Without SP the 8,192 B/token of norm and block inputs stay whole on every TP rank.
  Layout no_sp = tp2;
  no_sp.sequence_parallel = false;
  const MemoryEstimate replicated = estimate_memory(m, cluster(16), PlanWorkload{}, no_sp);
  EXPECT_DOUBLE_EQ(replicated.peak.activations_bytes, (8'192.0 + 32'800.0 / 2) * kTokens * 4);
}

TEST(MemoryModel, Bf16GradientsHoldTwoBytesPerParameter) {
  // Without grad_reduce_in_fp32 the DDP gradient buffer takes the parameters' dtype: 2 bytes per
  // parameter instead of 4; nothing else changes.
  const ModelShape m = tiny_dense();
  PlanWorkload bf16_grads;
  bf16_grads.grad_reduce_in_fp32 = false;
  const MemoryEstimate fp32 = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 1));
  const MemoryEstimate bf16 = estimate_memory(m, cluster(8), bf16_grads, layout(1, 1));
  EXPECT_DOUBLE_EQ(bf16.peak.gradients_bytes, 2.0 * 132'644'864);
  EXPECT_DOUBLE_EQ(fp32.peak.total_bytes - bf16.peak.total_bytes, 2.0 * 132'644'864);
}

TEST(MemoryModel, DataParallelShardsOnlyTheOptimizer) {
  const ModelShape m = tiny_dense();
  const MemoryEstimate dp8 = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 1));
  const MemoryEstimate dp16 = estimate_memory(m, cluster(16), PlanWorkload{}, layout(1, 1));
  EXPECT_DOUBLE_EQ(dp16.peak.weights_bytes, dp8.peak.weights_bytes);
  EXPECT_DOUBLE_EQ(dp16.peak.gradients_bytes, dp8.peak.gradients_bytes);
  EXPECT_DOUBLE_EQ(dp16.peak.activations_bytes, dp8.peak.activations_bytes);
  EXPECT_DOUBLE_EQ(dp16.peak.logits_bytes, dp8.peak.logits_bytes);
  EXPECT_DOUBLE_EQ(dp16.peak.optimizer_bytes, dp8.peak.optimizer_bytes / 2);
}

TEST(MemoryModel, RecomputeLowersActivations) {
  const ModelShape m = tiny_dense();
  const ClusterShape c = cluster(8);
  Layout l = layout(1, 1);
  const double none = estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes;
  l.recompute = recompute("selective", "", std::nullopt);
  const double selective = estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes;
  // Selective recompute of core attention alone (Megatron-Core's default module) drops the
  // log-sum-exp, 32 B per token and layer.
  EXPECT_DOUBLE_EQ(selective, (40'992.0 - 32) * kTokens * 4);
  // mlp drops the whole MLP's tensors (fc1 output 16,384 + SwiGLU output 8,192); layernorm the two
  // norms' outputs (2 x 2h = 4,096); core_attn is then not recomputed unless listed.
  l.recompute = Recompute{"selective", "", std::nullopt, {"core_attn", "mlp"}};
  EXPECT_DOUBLE_EQ(estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes,
                   (40'992.0 - 32 - 24'576) * kTokens * 4);
  l.recompute = Recompute{"selective", "", std::nullopt, {"layernorm"}};
  EXPECT_DOUBLE_EQ(estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes,
                   (40'992.0 - 4'096) * kTokens * 4);
  l.recompute = recompute("full", "uniform", 1);
  const double uniform = estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes;
  // Four 2h inputs plus one layer recomputed during its backward.
  EXPECT_DOUBLE_EQ(uniform, 4 * 2'048.0 * kTokens + 40'992.0 * kTokens);
  l.recompute = recompute("full", "uniform", 2);
  const double uniform2 = estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes;
  EXPECT_DOUBLE_EQ(uniform2, 2 * 2'048.0 * kTokens + 2 * 40'992.0 * kTokens);
  l.recompute = recompute("full", "block", 1);
  const double block = estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes;
  // One layer keeps its input, three keep everything, plus the recomputed layer.
  EXPECT_DOUBLE_EQ(block, 2'048.0 * kTokens + 3 * 40'992.0 * kTokens + 40'992.0 * kTokens);
  EXPECT_LT(selective, none);
  EXPECT_LT(uniform, selective);
  EXPECT_LT(uniform, block);
}

TEST(MemoryModel, MoeRecomputeModulesByHand) {
  // tiny_moe on 8 GPUs, TP1 EP8: 4 MoE layers; k = 2 routed copies per token on average per GPU.
  // Per routed copy: dispatched hidden state 2h = 2,048 + fc1 output 2 x 2 x 512 = 2,048 +
  // SwiGLU output 2 x 512 = 1,024 + probability 4 = 5,124 B; router scores 4 x 8 = 32 B per token.
  const ModelShape m = tiny_moe();
  const ClusterShape c = cluster(8);
  Layout l = layout(1, 1, 8);
  l.dispatcher = "alltoall";
  ASSERT_TRUE(check_layout(m, c, PlanWorkload{}, l).empty());
  auto activations = [&](std::vector<std::string> modules) {
    l.recompute = Recompute{"selective", "", std::nullopt, std::move(modules)};
    return estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes;
  };
  const double core = activations({"core_attn"});
  // moe_act: the SwiGLU output of each copy.
  EXPECT_DOUBLE_EQ(core - activations({"core_attn", "moe_act"}), 2 * 1'024.0 * kTokens * 4);
  // moe: everything of the copies and the router scores; it covers moe_act, not taken twice.
  const double whole = (32 + 2 * 5'124.0) * kTokens * 4;
  EXPECT_DOUBLE_EQ(core - activations({"core_attn", "moe"}), whole);
  EXPECT_DOUBLE_EQ(core - activations({"core_attn", "moe", "moe_act"}), whole);
}

TEST(MemoryModel, MlaUpProjectionRecomputeByHand) {
  // tiny_dense with MLA attention: 8 heads, query/key 128 + 64 rotary = 192, value 128, key/value
  // latent 512. Per token and layer: Q, K, V 2 x (8 x 192 + 8 x 192 + 8 x 128) = 8,192 B and the
  // output 2 x 8 x 128 = 2,048 B (against 6,144 and 2,048 for the MHA), which mla_up_proj drops.
  ModelShape m = tiny_dense();
  m.head_dim = 192;
  m.mla_rope_head_dim = 64;
  m.mla_v_head_dim = 128;
  m.mla_kv_lora_rank = 512;
  ASSERT_TRUE(m.has_mla());
  const ClusterShape c = cluster(8);
  Layout l = layout(1, 1);
  const double none = estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes;
  EXPECT_DOUBLE_EQ(none, (40'992.0 + 8'192 - 6'144) * kTokens * 4);
  l.recompute = Recompute{"selective", "", std::nullopt, {"mla_up_proj"}};
  EXPECT_DOUBLE_EQ(estimate_memory(m, c, PlanWorkload{}, l).peak.activations_bytes,
                   (40'992.0 - 6'144) * kTokens * 4);
  // A model without MLA has nothing for mla_up_proj to drop.
  EXPECT_DOUBLE_EQ(estimate_memory(tiny_dense(), c, PlanWorkload{}, l).peak.activations_bytes,
                   40'992.0 * kTokens * 4);
}

TEST(MemoryModel, MorePipelineStagesRaiseTheFirstStagesInFlightCount) {
  const ModelShape m = tiny_dense();
  const MemoryEstimate pp2 = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 2));
  const MemoryEstimate pp4 = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 4));
  ASSERT_EQ(pp2.stages.size(), 2u);
  ASSERT_EQ(pp4.stages.size(), 4u);
  EXPECT_DOUBLE_EQ(pp2.stages[0].in_flight_microbatches, 2);
  EXPECT_DOUBLE_EQ(pp4.stages[0].in_flight_microbatches, 4);
  EXPECT_DOUBLE_EQ(pp4.stages[3].in_flight_microbatches, 1);
  // PP4's first stage holds one layer x 4 micro-batches, PP2's two layers x 2.
  EXPECT_DOUBLE_EQ(pp4.stages[0].activations_bytes, pp2.stages[0].activations_bytes);
  EXPECT_GT(pp4.stages[3].logits_bytes, 0);
  EXPECT_EQ(pp4.stages[0].logits_bytes, 0);
}

TEST(MemoryModel, ExpertParallelismShardsExpertWeights) {
  const ModelShape m = tiny_moe();
  // Per layer: attention 4,194,304 + router 8,192 dense; experts 8 x 1,572,864 = 12,582,912.
  const double dense = 4 * (4'194'304.0 + 8'192) + 2 * 32'768'000.0;
  const double experts = 4 * 12'582'912.0;
  const MemoryEstimate ep1 = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 1, 1));
  const MemoryEstimate ep2 = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 1, 2));
  const Layout etp2 = layout(1, 1, 2, 2);
  ASSERT_TRUE(check_layout(m, cluster(8), PlanWorkload{}, etp2).empty());
  const MemoryEstimate ep2etp2 = estimate_memory(m, cluster(8), PlanWorkload{}, etp2);
  EXPECT_DOUBLE_EQ(ep1.peak.weights_bytes, 2 * (dense + experts));
  EXPECT_DOUBLE_EQ(ep2.peak.weights_bytes, 2 * (dense + experts / 2));
  EXPECT_DOUBLE_EQ(ep2etp2.peak.weights_bytes, 2 * (dense + experts / 4));
  // Expert optimizer state is sharded over expert DP = 8 / (EP x ETP); dense over DP = 8.
  EXPECT_DOUBLE_EQ(ep1.peak.optimizer_bytes, 12 * dense / 8 + 12 * experts / 8);
  EXPECT_DOUBLE_EQ(ep2.peak.optimizer_bytes, 12 * dense / 8 + 12 * (experts / 2) / 4);
  // MoE activations per token per layer at TP 1, ETP 1: attention 12,320; norm input and output
  // 4,096 + router scores 4 x 8 = 32; two routed copies of 2h + 6 x 512 + 4 = 5,124 each.
  EXPECT_DOUBLE_EQ(ep1.peak.activations_bytes, (12'320.0 + 4'128 + 2 * 5'124) * kTokens * 4);
  // ETP 2 doubles the copies an expert rank sees (gathered over ETP) and halves their widths.
  EXPECT_DOUBLE_EQ(ep2etp2.peak.activations_bytes,
                   (12'320.0 + 4'128 + 2 * 2 * (2'048 + 3'072.0 / 2 + 4)) * kTokens * 4);
}

/// Hand-built (not a real model), as Nemotron-H arranges its layers: 6 layers, each one mixer or
/// one MLP: 2 Mamba-2 (32 heads of 64, 8 groups, d_state 128), 1 attention (8 heads of 128,
/// 2 KV heads), 3 ungated (squared-ReLU) MLPs of 4,096; h = 1,024.
///   Mamba-2: in_proj 1,024 x 6,176 + conv 4,096 x 4 + out_proj 2,048 x 1,024 = 8,437,760;
///   attention 1,024 x (1,024 + 2 x 256) + 1,024 x 1,024 = 2,621,440; MLP 2 x 1,024 x 4,096 =
///   8,388,608.
ModelShape tiny_hybrid() {
  ModelShape m;
  m.name = "tiny-hybrid";
  m.layers = 6;
  m.hidden_size = 1024;
  m.vocab_size = 32000;
  m.attention_heads = 8;
  m.kv_heads = 2;
  m.head_dim = 128;
  m.attention_layers = 1;
  m.attention_params = 2'621'440;
  m.mamba_layers = 2;
  m.mamba_heads = 32;
  m.mamba_head_dim = 64;
  m.mamba_groups = 8;
  m.mamba_state_size = 128;
  m.mamba_conv_kernel = 4;
  m.mamba_params = 8'437'760;
  m.gated_mlp = false;
  m.dense_mlp_layers = 3;
  m.dense_ffn_hidden_size = 4096;
  m.dense_mlp_params = 8'388'608;
  m.embedding_params = 32000 * 1024;
  m.output_params = 32000 * 1024;
  return m;
}

TEST(MemoryModel, SequentialHybridByHand) {
  const ModelShape m = tiny_hybrid();
  const ClusterShape c = cluster(8);
  const Layout l = layout(1, 1);
  ASSERT_TRUE(check_layout(m, c, PlanWorkload{}, l).empty());
  const MemoryEstimate e = estimate_memory(m, c, PlanWorkload{}, l);
  // Weights: 2 x 8,437,760 + 2,621,440 + 3 x 8,388,608 + 2 x 32,768,000 = 110,198,784.
  EXPECT_DOUBLE_EQ(e.peak.weights_bytes, 2.0 * 110'198'784);
  // Per token (bytes):
  //   Mamba-2:   norm + in_proj inputs 4,096; in_proj output 2 x 6,176 = 12,352; scan output,
  //              gated output and out_proj input 3 x 2 x 2,048 = 12,288: 28,736
  //   attention: 4,096; Q, K, V 2 x (1,024 + 2 x 256) = 3,072; output 2,048; LSE 32: 9,248
  //   MLP:       4,096; fc1 output 2 x 4,096 = 8,192; squared-ReLU output 8,192: 20,480
  //   6 layers:  2 x 28,736 + 9,248 + 3 x 20,480 = 128,160.
  EXPECT_DOUBLE_EQ(e.peak.activations_bytes, 128'160.0 * kTokens);
  // Selective recompute (core_attn) drops the attention's LSE (32); with mlp too, the 3 MLPs'
  // tensors (3 x 16,384); Mamba-2 keeps everything.
  Layout selective = l;
  selective.recompute = recompute("selective", "", std::nullopt);
  EXPECT_DOUBLE_EQ(estimate_memory(m, c, PlanWorkload{}, selective).peak.activations_bytes,
                   (128'160.0 - 32) * kTokens);
  selective.recompute->modules = {"core_attn", "mlp"};
  EXPECT_DOUBLE_EQ(estimate_memory(m, c, PlanWorkload{}, selective).peak.activations_bytes,
                   (128'160.0 - 32 - 3 * 16'384) * kTokens);
}

TEST(MemoryModel, ParallelHybridSharesTheMixersNormInput) {
  // Hand-built as Falcon-H1 arranges its layers: every layer attention and Mamba-2 side by side
  // plus a gated MLP of 4,096; 2 layers. Per layer: the two mixers' 4,096 + 4,096 sequence bytes
  // share one norm input and block input (-4,096):
  //   Mamba-2 28,736 + attention 9,248 + MLP (4,096 + 3 x 2 x 4,096 = 28,672) - 4,096 = 62,560.
  ModelShape m = tiny_hybrid();
  m.layers = 2;
  m.attention_layers = 2;
  m.mamba_layers = 2;
  m.dense_mlp_layers = 2;
  m.gated_mlp = true;
  m.dense_mlp_params = 3 * 1024 * 4096;
  const MemoryEstimate e = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 1));
  EXPECT_DOUBLE_EQ(e.peak.activations_bytes, 2 * 62'560.0 * kTokens);
}

TEST(MemoryModel, SparseAttentionIndexerIsWholeOnEveryTpRank) {
  // The tiny dense model with a lightning indexer (4 heads of 64, top 2,048) in every attention
  // layer, 331,776 weights each (1,024 x (4 x 64 + 64 + 4)). Per token its tensors are on every
  // TP rank whole: hidden state 2,048 + queries 2 x 256 = 512 + key 128 + weights 4 x 4 = 16 +
  // top-k indices 4 x 2,048 = 8,192: 10,896.
  ModelShape m = tiny_dense();
  m.indexer_heads = 4, m.indexer_head_dim = 64, m.indexer_top_k = 2048;
  m.indexer_params = 331'776;
  const MemoryEstimate one = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 1));
  EXPECT_DOUBLE_EQ(one.peak.activations_bytes, (40'992.0 + 10'896) * kTokens * 4);
  EXPECT_DOUBLE_EQ(one.peak.weights_bytes, 2.0 * (132'644'864 + 4 * 331'776));
  // TP 2 (16 GPUs, DP 8) halves everything but the indexer's weights and tensors.
  const MemoryEstimate two = estimate_memory(m, cluster(16), PlanWorkload{}, layout(2, 1));
  EXPECT_DOUBLE_EQ(two.peak.activations_bytes, (40'992.0 / 2 + 10'896) * kTokens * 4);
  EXPECT_DOUBLE_EQ(two.peak.weights_bytes, 2.0 * (132'644'864 / 2.0 + 4 * 331'776));
}

TEST(MemoryModel, HeadroomAndOffload) {
  const ModelShape m = tiny_dense();
  MemoryOptions tight;
  tight.headroom_fraction = 0.99;
  const MemoryEstimate e = estimate_memory(m, cluster(8), PlanWorkload{}, layout(1, 1), tight);
  EXPECT_DOUBLE_EQ(e.usable_bytes, 80e9 * (1 - 0.99));
  EXPECT_FALSE(e.fits);
  Layout offloaded = layout(1, 1);
  offloaded.offload = Offload{0.5, false};
  const MemoryEstimate half = estimate_memory(m, cluster(8), PlanWorkload{}, offloaded);
  EXPECT_DOUBLE_EQ(half.peak.optimizer_bytes, 12.0 * 132'644'864 / 8 / 2);
}

ModelShape real_model(const std::string& slug) {
  Problems problems;
  std::optional<ModelShape> m =
      model_shape_from_file(source("models/" + slug + "/config.json"), slug, problems);
  EXPECT_TRUE(m.has_value()) << slug;
  return m.value_or(ModelShape{});
}

void print(const std::string& what, const MemoryEstimate& e) {
  const StageMemory& s = e.peak;
  std::printf(
      "%s: %.1f GB of %.1f usable, stage %d (%d layers, %.2f in flight): weights %.1f, gradients "
      "%.1f, "
      "optimizer %.1f, activations %.1f, logits %.1f GB\n",
      what.c_str(), e.memory_bytes / 1e9, e.usable_bytes / 1e9, s.stage, s.layers,
      s.in_flight_microbatches, s.weights_bytes / 1e9, s.gradients_bytes / 1e9,
      s.optimizer_bytes / 1e9, s.activations_bytes / 1e9, s.logits_bytes / 1e9);
}

MemoryEstimate checked(const ModelShape& m, const ClusterShape& c, const Layout& l,
                       const std::string& what) {
  EXPECT_TRUE(check_layout(m, c, PlanWorkload{}, l).empty()) << what;
  MemoryEstimate e = estimate_memory(m, c, PlanWorkload{}, l);
  print(what, e);
  return e;
}

TEST(MemoryModel, GptOss20bMeasuredLayoutsFit) {
  const ModelShape m = real_model("gpt-oss-20b");
  // recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml: no recompute, one 8,192-token row.
  EXPECT_TRUE(checked(m, cluster(8, 141), layout(1, 2, 4), "gpt-oss-20b 8xH200 TP1 PP2 EP4").fits);
  // Megatron-Bridge's gpt-oss-20b recipe on 8 x H100: TP1 PP1 EP8 with full recompute.
  Layout bridge = layout(1, 1, 8);
  bridge.recompute = recompute("full", "uniform", 1);
  EXPECT_TRUE(
      checked(m, cluster(8, 80), bridge, "gpt-oss-20b 8xH100 TP1 PP1 EP8 full/uniform/1").fits);
}

TEST(MemoryModel, Qwen35NeedsRecomputeOnH200) {
  const ModelShape m = real_model("qwen3.5-122b-a10b");
  Layout l = layout(1, 4, 8);
  l.recompute = recompute("full", "uniform", 1);
  EXPECT_TRUE(
      checked(m, cluster(32, 141), l, "Qwen3.5-122B 32xH200 TP1 PP4 EP8 full/uniform/1").fits);
  l.recompute = recompute("full", "uniform", 2);
  EXPECT_TRUE(
      checked(m, cluster(32, 141), l, "Qwen3.5-122B 32xH200 TP1 PP4 EP8 full/uniform/2").fits);
  l.recompute.reset();
  const MemoryEstimate none =
      checked(m, cluster(32, 141), l, "Qwen3.5-122B 32xH200 TP1 PP4 EP8 no recompute");
  EXPECT_FALSE(none.fits);
  EXPECT_GT(none.memory_bytes,
            none.capacity_bytes);  // over the whole 141 GB, not only the headroom
  EXPECT_EQ(none.peak.stage, 0);   // four micro-batches in flight on the first stage
}

TEST(MemoryModel, EveryCatalogRecipeIsLegalAndFits) {
  Problems problems;
  std::optional<LoadedCatalog> loaded = load_catalog(OPENRECIPES_SOURCE_DIR, problems);
  ASSERT_TRUE(loaded.has_value());
  const std::vector<std::string> files = list_recipe_files(OPENRECIPES_SOURCE_DIR, problems);
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    std::optional<YamlDocument> doc =
        load_checked_file(source(file), source("schema/recipe.schema.yaml"), problems);
    ASSERT_TRUE(doc.has_value()) << file;
    const Recipe recipe = recipe_from_yaml(doc->root);
    const Model* model = loaded->catalog.find_model(recipe.model);
    const Gpu* gpu_type = loaded->catalog.find_gpu(recipe.gpu.type);
    ASSERT_NE(model, nullptr) << file;
    ASSERT_NE(gpu_type, nullptr) << file;
    const ClusterShape c{*gpu_type, recipe.gpu.count, recipe.gpu.per_node};
    PlanWorkload w;
    w.row_tokens = recipe.workload.row_tokens;
    w.global_batch = recipe.workload.global_batch;
    EXPECT_TRUE(check_layout(model->shape, c, w, recipe.layout).empty()) << file;
    const MemoryEstimate e = estimate_memory(model->shape, c, w, recipe.layout);
    print(file, e);
    EXPECT_TRUE(e.fits) << file;
  }
  EXPECT_TRUE(problems.empty());
}

}  // namespace
}  // namespace openrecipes
