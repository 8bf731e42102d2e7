// The planner's search on the catalog's real models: what it ranks obeys every rule and fits, it
// is ordered, it says why it rejected the rest, and the catalog's own recipes are legal and fit.
#include "plan/layout_search.h"

#include <gtest/gtest.h>

#include "layout/layout_text.h"
#include "plan/catalog_measurements.h"
#include "test_support.h"

namespace openrecipes {
namespace {

using testing::bundled_catalog;

ClusterShape h200_cluster(int gpus) {
  return cluster_of(*bundled_catalog().catalog.find_gpu("H200"), gpus);
}

const ModelShape& shape(const std::string& name) {
  return bundled_catalog().catalog.find_model(name)->shape;
}

TEST(LayoutSearch, EveryCatalogRecipeIsLegalAndPredictedToFit) {
  CatalogCheck checked = check_catalog(testing::source_dir(), {}, testing::source_dir());
  std::vector<MeasuredLayout> measured = measured_layouts(checked.loaded->catalog, checked.recipes);
  ASSERT_EQ(measured.size(), 4u);
  for (const MeasuredLayout& m : measured) {
    EXPECT_TRUE(check_layout(m.model, m.cluster, m.workload, m.layout).empty()) << m.name;
    Layout l = m.layout;
    l.dp = implied_data_parallel(m.cluster, l);
    MemoryEstimate memory = estimate_memory(m.model, m.cluster, m.workload, l);
    EXPECT_TRUE(memory.fits) << m.name << ": " << memory.memory_bytes / 1e9 << " GB";
    // The gradient dtype each recipe's run states: gpt-oss-20b's --grad-reduce-in-bf16, the
    // Qwen3.5 recipes' --accumulate-allreduce-grads-in-fp32.
    EXPECT_EQ(m.workload.grad_reduce_in_fp32, m.name.find("gpt-oss-20b") == std::string::npos)
        << m.name;
  }
}

// state_bytes_floor_per_gpu is a floor: the layouts the search keeps and the one closest to
// fitting need at least it; and a count where the floor is above the usable memory has no layout
// that fits. DeepSeek-V3 on 128 H100s is such a case (the site skips those searches), 256 is not.
TEST(LayoutSearch, NoLayoutNeedsLessThanTheStateFloor) {
  SearchOptions options;
  options.top = 200;
  const struct {
    const char* model;
    int gpus;
    bool floor_above_usable;
  } cases[] = {{"gpt-oss-20b", 8, false},        {"Llama-3-70B", 8, true},
               {"Llama-3-70B", 32, false},       {"Qwen3.5-122B-A10B", 8, true},
               {"Qwen3.5-122B-A10B", 32, false}, {"DeepSeek-V3", 128, true},
               {"DeepSeek-V3", 256, false}};
  for (const auto& c : cases) {
    ClusterShape cluster = cluster_of(*bundled_catalog().catalog.find_gpu("H100"), c.gpus);
    const double floor = state_bytes_floor_per_gpu(shape(c.model), cluster, PlanWorkload{});
    const double usable = usable_bytes_per_gpu(cluster);  // the default 10% headroom
    EXPECT_EQ(floor > usable, c.floor_above_usable) << c.model << " " << floor / 1e9 << " GB";
    LayoutSearchResult result = search_layouts(shape(c.model), cluster, PlanWorkload{}, options);
    for (const LayoutPrediction& p : result.ranked) {
      ASSERT_GE(p.memory.memory_bytes, floor) << c.model << " " << c.gpus << " " << p.layout.label;
    }
    if (result.memory_example) {
      EXPECT_GE(result.memory_example->memory.memory_bytes, floor) << c.model << " " << c.gpus;
    }
    if (floor > usable) {
      EXPECT_TRUE(result.ranked.empty()) << c.model << " " << c.gpus;
    }
  }
}

TEST(LayoutSearch, ExploresTheBalancedPlacementOfEachPpAndVpp) {
  // gpt-oss-20b's 24 layers on 8 H200s: PP8 leaves 3 layers a stage, which VPP2 does not divide;
  // the search tries PP8 VPP2 in its balanced placement instead of only rejecting it: 26 counted
  // layers over 16 chunks, 2 each but 6, the lighter ones on the first and last chunks and on the
  // second chunks of stages 6, 1, 5 and 2 (3 counted layers on every stage but 3 and 4).
  SearchOptions options;
  options.top = 100000;  // every fitting layout
  LayoutSearchResult result =
      search_layouts(shape("gpt-oss-20b"), h200_cluster(8), PlanWorkload{}, options);
  bool pp8_vpp2 = false;
  for (const LayoutPrediction& p : result.ranked) {
    EXPECT_TRUE(
        check_layout(shape("gpt-oss-20b"), h200_cluster(8), PlanWorkload{}, p.layout).empty())
        << p.layout.label << " " << placement_text(p.layout);
    if (p.layout.pp == 8 && p.layout.vpp == 2) {
      pp8_vpp2 = true;
      EXPECT_EQ(p.layout.pipeline_layout, "E|(tt|)*8,(t|)*2,(tt|)*2,(t|)*2,L")
          << placement_text(p.layout);
    }
  }
  EXPECT_TRUE(pp8_vpp2);
}

TEST(LayoutSearch, RanksOnlyLegalFittingLayoutsBestFirst) {
  SearchOptions options;
  options.top = 20;
  LayoutSearchResult result =
      search_layouts(shape("gpt-oss-20b"), h200_cluster(8), PlanWorkload{}, options);
  ASSERT_FALSE(result.ranked.empty());
  EXPECT_LE(result.ranked.size(), 20u);
  EXPECT_GE(result.candidates, result.legal);
  EXPECT_GE(result.legal, result.fitting);
  EXPECT_EQ(result.legal, result.fitting + result.rejected_by_memory);
  for (std::size_t i = 0; i < result.ranked.size(); ++i) {
    const LayoutPrediction& p = result.ranked[i];
    EXPECT_TRUE(
        check_layout(shape("gpt-oss-20b"), h200_cluster(8), PlanWorkload{}, p.layout).empty())
        << p.layout.label;
    EXPECT_TRUE(p.memory.fits) << p.layout.label;
    EXPECT_EQ(p.layout.dp * p.layout.tp * p.layout.pp * p.layout.cp, 8) << p.layout.label;
    EXPECT_FALSE(p.layout.label.empty());
    if (i > 0) {
      EXPECT_GE(result.ranked[i - 1].speed.tokens_per_s_per_gpu, p.speed.tokens_per_s_per_gpu);
    }
  }
}

TEST(LayoutSearch, SaysWhichRuleRejectedWhat) {
  SearchOptions options;
  LayoutSearchResult result =
      search_layouts(shape("Qwen3.5-122B-A10B"), h200_cluster(32), PlanWorkload{}, options);
  bool heads = false;
  for (const RuleRejections& r : result.rejected) {
    EXPECT_GT(r.count, 0);
    EXPECT_EQ(r.example_violation.rule, r.rule);  // the example breaks the rule it is filed under
    EXPECT_EQ(
        first_broken_rule(shape("Qwen3.5-122B-A10B"), h200_cluster(32), PlanWorkload{}, r.example),
        r.rule);
    if (r.rule == LayoutRule::kTpHeads) {
      heads = true;
      EXPECT_GT(r.example.tp, 2);  // 2 KV heads: TP 4 and 8 are rejected
    }
  }
  EXPECT_TRUE(heads);
  // Without recompute the catalog's layout does not fit: the memory model rejects something.
  EXPECT_GT(result.rejected_by_memory, 0);
}

// Blocks of meshes one rule decides are counted at once, and recompute settings no faster than
// the kept layouts are not predicted; checking every mesh and predicting every fitting layout must
// give the same result: counts, each rule's count and example, and the ranking. GPU counts with
// many divisors (360: 24) put many meshes in such blocks; the models cover MLA and MoE
// (DeepSeek-V3), Gated DeltaNet under CP (Qwen3.5) and Mamba-2 (Nemotron 3 Nano).
TEST(LayoutSearch, BlocksDecidedAtOnceCountAsCheckingEveryMesh) {
  for (const auto& [model, gpus] :
       std::vector<std::pair<std::string, int>>{{"DeepSeek-V3", 360},
                                                {"Qwen3.5-122B-A10B", 120},
                                                {"Nemotron-3-Nano-30B-A3B", 360},
                                                {"gpt-oss-20b", 24},
                                                {"Llama-3-8B", 12}}) {
    SCOPED_TRACE(model + " on " + std::to_string(gpus));
    SearchOptions fast;
    fast.top = 5;
    SearchOptions every = fast;
    every.check_every_mesh = true;
    every.predict_every_layout = true;
    LayoutSearchResult a = search_layouts(shape(model), h200_cluster(gpus), PlanWorkload{}, fast);
    LayoutSearchResult b = search_layouts(shape(model), h200_cluster(gpus), PlanWorkload{}, every);
    EXPECT_EQ(a.candidates, b.candidates);
    EXPECT_EQ(a.legal, b.legal);
    EXPECT_EQ(a.fitting, b.fitting);
    EXPECT_EQ(a.rejected_by_memory, b.rejected_by_memory);
    EXPECT_EQ(b.predicted, b.fitting);
    EXPECT_LE(a.predicted, a.fitting);
    if (model == "DeepSeek-V3") {
      EXPECT_LT(a.predicted, a.fitting);  // the skip does happen
    }
    ASSERT_EQ(a.rejected.size(), b.rejected.size());
    std::int64_t rejected = 0;
    for (std::size_t i = 0; i < a.rejected.size(); ++i) {
      EXPECT_EQ(a.rejected[i].rule, b.rejected[i].rule);
      EXPECT_EQ(a.rejected[i].count, b.rejected[i].count) << layout_rule_id(a.rejected[i].rule);
      EXPECT_TRUE(same_layout(a.rejected[i].example, b.rejected[i].example))
          << layout_rule_id(a.rejected[i].rule);
      EXPECT_EQ(a.rejected[i].example_violation.message, b.rejected[i].example_violation.message);
      rejected += a.rejected[i].count;
    }
    EXPECT_EQ(a.candidates, rejected + a.legal);
    ASSERT_EQ(a.ranked.size(), b.ranked.size());
    for (std::size_t i = 0; i < a.ranked.size(); ++i) {
      EXPECT_TRUE(same_layout(a.ranked[i].layout, b.ranked[i].layout)) << a.ranked[i].layout.label;
      EXPECT_EQ(a.ranked[i].speed.tokens_per_s_per_gpu, b.ranked[i].speed.tokens_per_s_per_gpu);
    }
  }
}

TEST(LayoutSearch, NoLayoutFitsWhenTheModelCannotFit) {
  // Qwen3.5-122B-A10B's weights and optimizer state alone exceed one GPU.
  LayoutSearchResult result =
      search_layouts(shape("Qwen3.5-122B-A10B"), h200_cluster(1), PlanWorkload{}, SearchOptions{});
  EXPECT_TRUE(result.ranked.empty());
  EXPECT_GT(result.rejected_by_memory, 0);
  ASSERT_TRUE(result.memory_example);
  EXPECT_FALSE(result.memory_example->memory.fits);
}

// Hand-built (not read from any config): a sequential Mamba-2 hybrid of 52 layers, each one mixer
// or one MLP: 24 Mamba-2 (h 4,096, 128 heads of 64, 8 groups, d_state 128), 4 attention (32
// heads, 8 KV heads of 128), 24 squared-ReLU MLPs of 21,504; vocabulary 131,072, untied.
//   Mamba-2 4,096 x (16,384 + 2,048 + 128) + 10,240 x 4 + 8,192 x 4,096 = 109,617,152;
//   attention 4,096 x 6,144 + 4,096 x 4,096 = 41,943,040; MLP 2 x 4,096 x 21,504 = 176,160,768.
ModelShape mamba_hybrid() {
  ModelShape m;
  m.name = "hand-built hybrid";
  m.model_type = "hybrid";
  m.layers = 52;
  m.hidden_size = 4096;
  m.vocab_size = 131072;
  m.attention_heads = 32, m.kv_heads = 8, m.head_dim = 128, m.attention_layers = 4;
  m.attention_params = 41'943'040;
  m.mamba_layers = 24, m.mamba_heads = 128, m.mamba_head_dim = 64, m.mamba_groups = 8;
  m.mamba_state_size = 128, m.mamba_conv_kernel = 4;
  m.mamba_params = 109'617'152;
  m.gated_mlp = false;
  m.dense_mlp_layers = 24, m.dense_ffn_hidden_size = 21504;
  m.dense_mlp_params = 176'160'768;
  m.embedding_params = m.output_params = 131072LL * 4096;
  m.active_params =
      24 * m.mamba_params + 4 * m.attention_params + 24 * m.dense_mlp_params + m.output_params;
  return m;
}

TEST(LayoutSearch, PlansAMambaHybrid) {
  // End to end on 16 H200s: every ranked layout obeys the Mamba-2 rules (TP divides 128 heads and
  // 8 groups; CP divides each TP rank's heads and groups), fits, and is ordered; CP layouts are
  // among the candidates (mesh.cp_layers rejects only those it must).
  const ModelShape m = mamba_hybrid();
  SearchOptions options;
  options.top = 100000;
  LayoutSearchResult result = search_layouts(m, h200_cluster(16), PlanWorkload{}, options);
  ASSERT_FALSE(result.ranked.empty());
  bool cp = false;
  for (std::size_t i = 0; i < result.ranked.size(); ++i) {
    const LayoutPrediction& p = result.ranked[i];
    EXPECT_TRUE(check_layout(m, h200_cluster(16), PlanWorkload{}, p.layout).empty())
        << p.layout.label;
    EXPECT_TRUE(p.memory.fits) << p.layout.label;
    EXPECT_EQ(128 % p.layout.tp, 0) << p.layout.label;
    EXPECT_EQ(8 % p.layout.tp, 0) << p.layout.label;
    EXPECT_GT(p.speed.tokens_per_s_per_gpu, 0) << p.layout.label;
    cp = cp || p.layout.cp > 1;
    if (i > 0) {
      EXPECT_GE(result.ranked[i - 1].speed.tokens_per_s_per_gpu, p.speed.tokens_per_s_per_gpu);
    }
  }
  EXPECT_TRUE(cp);
}

// Qwen3-30B-A3B (128 experts, top-8) on two H100 nodes: an EP group across both nodes sends
// routed tokens over the network, where DeepEP sends a token once per node it reaches
// (collective_time.h, deepep_network_share). Each layout is ranked once, with its faster
// dispatcher; inside one node DeepEP is predicted as alltoall and the tie keeps alltoall.
TEST(LayoutSearch, RanksEachLayoutWithItsFasterDispatcher) {
  const ModelShape& m = shape("Qwen3-30B-A3B");
  const ClusterShape cluster = cluster_of(*bundled_catalog().catalog.find_gpu("H100"), 16);
  SearchOptions options;
  options.top = 100000;
  LayoutSearchResult both = search_layouts(m, cluster, PlanWorkload{}, options);
  options.dispatchers = {"alltoall"};
  LayoutSearchResult alltoall = search_layouts(m, cluster, PlanWorkload{}, options);
  ASSERT_FALSE(both.ranked.empty());
  // The same layouts, each once: the flex variants are counted, not ranked beside alltoall.
  EXPECT_EQ(both.ranked.size(), alltoall.ranked.size());
  EXPECT_GT(both.candidates, alltoall.candidates);
  EXPECT_EQ(
      both.legal - alltoall.legal,
      (both.fitting - alltoall.fitting) + (both.rejected_by_memory - alltoall.rejected_by_memory));
  int flex = 0;
  for (const LayoutPrediction& p : both.ranked) {
    EXPECT_TRUE(check_layout(m, cluster, PlanWorkload{}, p.layout).empty()) << p.layout.label;
    if (p.layout.ep <= 1) {
      EXPECT_EQ(p.layout.dispatcher, "alltoall") << p.layout.label;
      continue;
    }
    Layout other = p.layout;
    other.dispatcher = p.layout.dispatcher == "flex" ? "alltoall" : "flex";
    const double other_speed =
        estimate_speed(m, cluster, PlanWorkload{}, other, options.speed, false)
            .tokens_per_s_per_gpu;
    if (p.layout.dispatcher == "flex") {
      ++flex;
      EXPECT_GT(p.layout.ep * p.layout.etp, 8) << p.layout.label;  // across the nodes
      EXPECT_GT(p.speed.tokens_per_s_per_gpu, other_speed) << p.layout.label;
    } else {
      EXPECT_GE(p.speed.tokens_per_s_per_gpu, other_speed) << p.layout.label;
    }
  }
  EXPECT_GT(flex, 0);
  EXPECT_GE(both.ranked.front().speed.tokens_per_s_per_gpu,
            alltoall.ranked.front().speed.tokens_per_s_per_gpu);
  for (const LayoutPrediction& p : alltoall.ranked) EXPECT_EQ(p.layout.dispatcher, "alltoall");
}

// Under --overlap-moe-expert-parallel-comm, full recompute breaks mesh.ep_a2a_overlap: the search
// checks every recompute setting, not only the mesh, and ranks none of them.
TEST(LayoutSearch, ChecksEveryRecomputeSettingAgainstTheRules) {
  PlanWorkload overlap;
  overlap.ep_a2a_overlap = true;
  SearchOptions options;
  options.top = 100000;
  const ModelShape& m = shape("gpt-oss-20b");
  LayoutSearchResult result = search_layouts(m, h200_cluster(8), overlap, options);
  ASSERT_FALSE(result.ranked.empty());
  for (const LayoutPrediction& p : result.ranked) {
    EXPECT_TRUE(check_layout(m, h200_cluster(8), overlap, p.layout).empty()) << p.layout.label;
    EXPECT_FALSE(p.layout.recompute && p.layout.recompute->granularity == "full") << p.layout.label;
  }
}

TEST(LayoutSearch, SameLayoutIgnoresLabelsButNotSettings) {
  Problems error;
  Layout a = *parse_layout_text("TP1 PP4 EP8", 8192, error);
  Layout b = a;
  b.label = "anything";
  EXPECT_TRUE(same_layout(a, b));
  b.recompute = Recompute{"full", "uniform", 2};
  EXPECT_FALSE(same_layout(a, b));
  a.recompute = Recompute{"full", "uniform", 2};
  EXPECT_TRUE(same_layout(a, b));
  b.dispatcher = "flex";
  EXPECT_FALSE(same_layout(a, b));
}

}  // namespace
}  // namespace openrecipes
