// Each legality rule with a layout it accepts and one it rejects, on the catalog's real models.
#include "layout/layout_rules.h"

#include <gtest/gtest.h>

#include "layout/layout_text.h"
#include "test_support.h"

namespace openrecipes {
namespace {

using testing::bundled_catalog;

const ModelShape& shape(const std::string& name) {
  const Model* model = bundled_catalog().catalog.find_model(name);
  EXPECT_NE(model, nullptr) << name;
  return model->shape;
}

ClusterShape h200(int gpus) {
  ClusterShape cluster;
  cluster.gpu = *bundled_catalog().catalog.find_gpu("H200");
  cluster.gpus = gpus;
  cluster.per_node = 8;
  return cluster;
}

Layout layout(const std::string& text) {
  Problems error;
  std::optional<Layout> l = parse_layout_text(text, 8192, error);
  EXPECT_TRUE(l) << render_problems(error, OutputFormat::kText);
  return l.value_or(Layout{});
}

// The first rule `text` breaks for `model` on `gpus` H200s, as its id; "" when legal.
std::string broken(const std::string& model, int gpus, const std::string& text) {
  std::optional<LayoutRule> rule =
      first_broken_rule(shape(model), h200(gpus), PlanWorkload{}, layout(text));
  return rule ? layout_rule_id(*rule) : "";
}

constexpr const char* kGptOss = "gpt-oss-20b";  // 24 layers, 8 KV heads, 32 experts
constexpr const char* kQwen =
    "Qwen3.5-122B-A10B";  // 48 layers, 2 KV heads, 256 experts, GDN 16/64 heads

TEST(LayoutRules, CatalogRecipesAreLegal) {
  for (const char* file : {"recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml",
                           "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml",
                           "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml",
                           "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml"}) {
    Problems problems =
        testing::validate_as(file, testing::read_source_file(file));  // the real file
    for (const std::string& rule : testing::rules_of(problems)) {
      EXPECT_TRUE(rule.rfind("mesh.", 0) != 0) << file << ": " << rule;
    }
  }
  EXPECT_EQ(broken(kGptOss, 8, "TP1 PP2 EP4"), "");
  EXPECT_EQ(broken(kQwen, 32, "TP1 PP4 EP8"), "");
}

TEST(LayoutRules, DenseMeshMustDivideTheGpus) {
  EXPECT_EQ(broken(kGptOss, 8, "TP2 PP4"), "");
  EXPECT_EQ(broken(kGptOss, 8, "TP2 PP4 CP2"), "mesh.world");  // 16 model-parallel ranks on 8 GPUs
  EXPECT_EQ(broken(kGptOss, 12, "PP8"), "mesh.world");
}

TEST(LayoutRules, TensorParallelDividesTheKvHeads) {
  EXPECT_EQ(broken(kGptOss, 8, "TP8"), "");         // 8 KV heads
  EXPECT_EQ(broken(kQwen, 32, "TP2 PP4 EP8"), "");  // 2 KV heads, 16/64 GDN heads
  EXPECT_EQ(broken(kQwen, 32, "TP4 PP4 EP8"), "mesh.tp_heads");
}

TEST(LayoutRules, TensorParallelStaysWithinANode) {
  EXPECT_EQ(broken(kGptOss, 16, "TP8 EP2"), "");
  ModelShape wide = shape(kGptOss);
  wide.kv_heads = 16;  // so that only the node rule can reject TP16
  Layout tp16 = layout("TP16");
  EXPECT_EQ(first_broken_rule(wide, h200(16), PlanWorkload{}, tp16), LayoutRule::kTpNode);
  EXPECT_EQ(broken(kGptOss, 16, "TP1 EP1 ETP16"), "mesh.tp_node");
}

TEST(LayoutRules, SequenceParallelWheneverTensorParallel) {
  Layout l = layout("TP2 EP4");
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, l), std::nullopt);
  l.sequence_parallel = false;
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, l),
            LayoutRule::kSequenceParallel);
}

TEST(LayoutRules, ExpertParallelDividesTheExperts) {
  EXPECT_EQ(broken(kGptOss, 32, "EP32"), "");
  EXPECT_EQ(broken(kGptOss, 24, "EP3"), "mesh.ep");  // 32 experts
  ModelShape dense = shape(kGptOss);
  dense.experts = 0;
  EXPECT_EQ(first_broken_rule(dense, h200(8), PlanWorkload{}, layout("EP2")), LayoutRule::kExperts);
  EXPECT_EQ(first_broken_rule(dense, h200(8), PlanWorkload{}, layout("TP2")), std::nullopt);
}

TEST(LayoutRules, ExpertTensorParallelDividesTheExpertFfn) {
  // gpt-oss-20b's experts are 2,880 wide: ETP 2, 4 and 8 divide it; ETP 2 with a width of 2,881
  // does not, and the problem names layout.etp and the width.
  EXPECT_EQ(broken(kGptOss, 8, "EP4 ETP2"), "");
  EXPECT_EQ(broken(kGptOss, 8, "EP1 ETP8"), "");
  ModelShape odd = shape(kGptOss);
  odd.expert_ffn_hidden_size = 2881;
  std::vector<LayoutViolation> v = check_layout(odd, h200(8), PlanWorkload{}, layout("EP4 ETP2"));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front().rule, LayoutRule::kExperts);
  EXPECT_EQ(v.front().field, "layout.etp");
  EXPECT_EQ(v.front().expected, "a divisor of 2881");
  EXPECT_EQ(v.front().found, "2");
  EXPECT_EQ(first_broken_rule(odd, h200(8), PlanWorkload{}, layout("EP4")), std::nullopt);
}

TEST(LayoutRules, ExpertMeshMustBeWhole) {
  EXPECT_EQ(broken(kGptOss, 8, "PP2 EP4"), "");                // expert DP 1
  EXPECT_EQ(broken(kGptOss, 8, "PP2 EP8"), "mesh.expert_dp");  // 16 expert ranks on 8 GPUs
  EXPECT_EQ(broken(kGptOss, 8, "PP2 EP4 ETP2"), "mesh.expert_dp");
}

TEST(LayoutRules, PipelineStagesCoverEveryLayer) {
  EXPECT_EQ(broken(kGptOss, 8, "PP8"), "");          // 24 / 8
  EXPECT_EQ(broken(kGptOss, 10, "PP5"), "mesh.pp");  // 24 / 5
  Layout split = layout("PP5");
  split.layer_split = LayerSplit{4, 4};  // 24 - 8 = 16 layers do not split over 3 middle stages
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(10), PlanWorkload{}, split),
            LayoutRule::kPipelineLayers);
  split.layer_split = LayerSplit{3, 3};  // 24 - 6 = 18 = 3 x 6
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(10), PlanWorkload{}, split), std::nullopt);
  Layout one_stage = layout("PP1");
  one_stage.layer_split = LayerSplit{12, 12};
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, one_stage),
            LayoutRule::kPipelineLayers);
  // The messages say which field and what was expected.
  std::vector<LayoutViolation> v =
      check_layout(shape(kGptOss), h200(10), PlanWorkload{}, layout("PP5"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].field, "layout.pp");
  EXPECT_EQ(v[0].expected, "a divisor of 24 or a placement");
  EXPECT_EQ(v[0].found, "5");
}

TEST(LayoutRules, VirtualPipelineDividesEachStage) {
  EXPECT_EQ(broken(kQwen, 32, "PP4 VPP3 EP8"), "");  // 12 layers per stage
  EXPECT_EQ(broken(kQwen, 32, "PP4 VPP5 EP8"), "mesh.vpp");
  EXPECT_EQ(broken(kGptOss, 8, "VPP2 EP8"), "mesh.vpp");  // VPP without PP
}

// The rule `l` breaks for `model` on `gpus` H200s, as its id; "" when legal.
std::string broken(const std::string& model, int gpus, const Layout& l) {
  std::optional<LayoutRule> rule = first_broken_rule(shape(model), h200(gpus), PlanWorkload{}, l);
  return rule ? layout_rule_id(*rule) : "";
}

TEST(LayoutRules, AccountForFlagsCountTheEmbeddingAndTheLoss) {
  Layout l = layout("PP5");  // gpt-oss-20b's 24 layers: 24 + 1 = 5 x 5 with the embedding
  l.account_for_embedding_in_pipeline_split = true;
  EXPECT_EQ(broken(kGptOss, 10, l), "");
  l.account_for_loss_in_pipeline_split = true;  // 26 layers do not split over 5 stages
  EXPECT_EQ(broken(kGptOss, 10, l), "mesh.pp");
  std::vector<LayoutViolation> v = check_layout(shape(kGptOss), h200(10), PlanWorkload{}, l);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].expected, "a divisor of 26");
  l = layout("PP2 VPP5 EP8");                   // Qwen3.5's 48 layers + E + L = 2 x 5 x 5
  EXPECT_EQ(broken(kQwen, 32, l), "mesh.vpp");  // 24 per stage without the flags
  l.account_for_embedding_in_pipeline_split = true;
  l.account_for_loss_in_pipeline_split = true;
  EXPECT_EQ(broken(kQwen, 32, l), "");
}

TEST(LayoutRules, PlacementFormsAreExclusive) {
  Layout l = layout("PP4 EP8");
  l.layer_split = LayerSplit{11, 13};  // 48 - 24 = 2 x 12
  EXPECT_EQ(broken(kQwen, 32, l), "");
  l.account_for_loss_in_pipeline_split = true;
  EXPECT_EQ(broken(kQwen, 32, l), "mesh.placement_exclusive");
  l = layout("PP4 EP8");
  l.pipeline_layout = "Et*11|t*12|t*12|t*13L";
  EXPECT_EQ(broken(kQwen, 32, l), "");
  l.layer_split = LayerSplit{11, 13};
  EXPECT_EQ(broken(kQwen, 32, l), "mesh.placement_exclusive");
  l.layer_split.reset();
  l.account_for_embedding_in_pipeline_split = true;
  EXPECT_EQ(broken(kQwen, 32, l), "mesh.placement_exclusive");
}

TEST(LayoutRules, PipelineLayoutPlacesEveryLayerOnce) {
  Layout l = layout("PP4 VPP2 EP8");
  l.pipeline_layout = "Et*5|(t*6|)*6,t*7L";  // 5 + 36 + 7 = 48 on 8 chunks
  EXPECT_EQ(broken(kQwen, 32, l), "");
  l.pipeline_layout = "Et*5|(t*6|)*6,t*6L";  // 47 layers
  EXPECT_EQ(broken(kQwen, 32, l), "mesh.pipeline_layout");
  l.pipeline_layout = "Et*11|t*12|t*12|t*13L";  // 4 chunks for PP4 x VPP2
  EXPECT_EQ(broken(kQwen, 32, l), "mesh.pipeline_layout");
  l.pipeline_layout = "Et*5|(t*6|)*6,t*7";  // no loss
  std::vector<LayoutViolation> v = check_layout(shape(kQwen), h200(32), PlanWorkload{}, l);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, LayoutRule::kPipelineLayout);
  EXPECT_EQ(v[0].field, "layout.pipeline_layout");
  EXPECT_NE(v[0].message.find("end with the loss"), std::string::npos) << v[0].message;
  l.pipeline_layout = "Et*5|(t*6|)*6,t*6mL";  // Qwen3.5's one MTP layer, with the loss
  EXPECT_EQ(broken(kQwen, 32, l), "mesh.pipeline_layout");  // 47 decoder layers still
  l.pipeline_layout = "Et*5|(t*6|)*6,t*7mL";
  EXPECT_EQ(broken(kQwen, 32, l), "");
}

TEST(LayoutRules, ContextParallelNeedsLayersThatSupportIt) {
  // Qwen3.5-122B-A10B's Gated DeltaNet layers: 16 key and 64 value heads, split over TP x CP.
  EXPECT_EQ(broken(kQwen, 32, "TP2 CP8 EP8"), "");  // 8 key heads per TP rank: CP 8 divides
  EXPECT_EQ(broken(kQwen, 32, "TP1 CP16 EP8"), "");
  EXPECT_EQ(broken(kQwen, 64, "TP2 CP16 EP8"), "mesh.cp_layers");  // 8 key heads, CP 16
  EXPECT_EQ(broken(kQwen, 32, "TP1 CP32 EP8"), "mesh.cp_layers");
  EXPECT_EQ(broken(kGptOss, 32, "CP32 EP8"), "");  // softmax attention only
  std::vector<LayoutViolation> v =
      check_layout(shape(kQwen), h200(32), PlanWorkload{}, layout("TP1 CP32 EP8"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].expected, "a common divisor of 16 and 64");
  EXPECT_EQ(v[0].found, "32");
}

// Hand-built (not a real model): a Nemotron-H-like hybrid of 8 layers (4 Mamba-2, 1 attention
// with 8 KV heads, 3 MLP-only), Mamba-2 with `heads` heads of 64 and `groups` groups.
ModelShape mamba_hybrid(int heads, int groups) {
  ModelShape m;
  m.name = "hybrid";
  m.layers = 8;
  m.hidden_size = 4096;
  m.vocab_size = 32000;
  m.attention_heads = 32, m.kv_heads = 8, m.head_dim = 128, m.attention_layers = 1;
  m.mamba_layers = 4, m.mamba_heads = heads, m.mamba_head_dim = 64, m.mamba_groups = groups;
  m.mamba_state_size = 128, m.mamba_conv_kernel = 4;
  m.dense_mlp_layers = 3, m.dense_ffn_hidden_size = 16384, m.gated_mlp = false;
  return m;
}

std::string broken(const ModelShape& m, int gpus, const std::string& text,
                   const PlanWorkload& w = PlanWorkload{}) {
  Problems error;
  std::optional<Layout> l = parse_layout_text(text, w.row_tokens, error);
  EXPECT_TRUE(l) << text;
  std::optional<LayoutRule> rule = first_broken_rule(m, h200(gpus), w, l.value_or(Layout{}));
  return rule ? layout_rule_id(*rule) : "";
}

TEST(LayoutRules, TensorParallelDividesTheMambaHeadsAndGroups) {
  // MambaMixer asserts that TP divides nheads and ngroups (megatron/core/ssm/mamba_mixer.py).
  EXPECT_EQ(broken(mamba_hybrid(128, 8), 8, "TP8"), "");  // 128 heads, 8 groups, 8 KV heads
  EXPECT_EQ(broken(mamba_hybrid(36, 4), 8, "TP4"), "");   // 36 / 4 = 9 heads, 1 group per rank
  EXPECT_EQ(broken(mamba_hybrid(36, 4), 8, "TP8"), "mesh.tp_heads");  // 36 heads over 8
  EXPECT_EQ(broken(mamba_hybrid(64, 2), 8, "TP2"), "");
  EXPECT_EQ(broken(mamba_hybrid(64, 2), 8, "TP4"), "mesh.tp_heads");  // 2 groups over 4
  std::vector<LayoutViolation> v =
      check_layout(mamba_hybrid(64, 2), h200(8), PlanWorkload{}, layout("TP4"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].field, "layout.tp");
  EXPECT_NE(v[0].message.find("64 Mamba-2 heads and 2 Mamba-2 groups"), std::string::npos)
      << v[0].message;
  EXPECT_EQ(v[0].found, "4");
}

TEST(LayoutRules, ContextParallelSplitsTheMambaHeads) {
  // MambaContextParallel: CP divides each TP rank's heads, and divides its groups or is a
  // multiple of them (megatron/core/ssm/mamba_context_parallel.py).
  // 128 heads, 8 groups, TP 2: 64 heads and 4 groups per rank.
  EXPECT_EQ(broken(mamba_hybrid(128, 8), 8, "TP2 CP4"), "");   // 4 groups / 4
  EXPECT_EQ(broken(mamba_hybrid(128, 8), 16, "TP2 CP8"), "");  // 8 a multiple of 4 groups
  // 48 heads, 3 groups, TP 1, on rows of 12,288 tokens (so that 2 x CP divides them for CP 6):
  PlanWorkload w;
  w.row_tokens = 12288;
  EXPECT_EQ(broken(mamba_hybrid(48, 3), 6, "CP6", w), "");  // 48 / 6 heads; 6 a multiple of 3
  EXPECT_EQ(broken(mamba_hybrid(48, 3), 2, "CP2", w), "mesh.cp_layers");    // 3 groups over 2
  EXPECT_EQ(broken(mamba_hybrid(48, 3), 32, "CP32", w), "mesh.cp_layers");  // 48 heads over 32
  Problems error;
  std::vector<LayoutViolation> v =
      check_layout(mamba_hybrid(48, 3), h200(2), w, *parse_layout_text("CP2", w.row_tokens, error));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].field, "layout.cp");
  EXPECT_EQ(v[0].expected, "a divisor of 48 that divides 3 or is a multiple of it");
  EXPECT_EQ(v[0].found, "2");
}

TEST(LayoutRules, ContextParallelRunsSparseAttention) {
  // DeepSeek sparse attention runs under CP by all-gathering the keys (DSAttention's
  // cp_comm_type=allgather, megatron/core/transformer/experimental_attention_variant/dsa.py): no
  // extra rule; only the row's split (mesh.cp) applies.
  ModelShape m = shape(kGptOss);
  m.indexer_heads = 64, m.indexer_head_dim = 128, m.indexer_top_k = 2048;
  EXPECT_EQ(broken(m, 32, "CP32 EP8"), "");
}

TEST(LayoutRules, ContextParallelSplitsTheRowEvenly) {
  EXPECT_EQ(broken(kGptOss, 8, "CP2 EP8"), "");
  PlanWorkload odd;
  odd.row_tokens = 8190;
  Problems error;
  Layout cp4 = *parse_layout_text("CP4 EP8", odd.row_tokens, error);
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), odd, cp4), LayoutRule::kContextParallel);
}

TEST(LayoutRules, GlobalBatchSplitsOverDataParallelMicroBatches) {
  EXPECT_EQ(broken(kGptOss, 128, "EP32"), "");                 // DP 128 x 1 row
  EXPECT_EQ(broken(kGptOss, 128, "EP32 MBS2"), "mesh.batch");  // 128 x 2 rows > 128
  EXPECT_EQ(broken(kGptOss, 96, "EP32"), "mesh.batch");        // 128 % 96
}

TEST(LayoutRules, ARowFitsAMicroBatch) {
  Layout l = layout("CP2 EP8");
  l.max_tokens_per_gpu = 4096;  // 4096 x 2 = 8192: fits exactly
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, l), std::nullopt);
  l.max_tokens_per_gpu = 4095;
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, l), LayoutRule::kRowFits);
}

TEST(LayoutRules, AMicroBatchsRowsFitTheTokenBudget) {
  Layout l = layout("EP8");
  l.rows_per_microbatch = 4;  // 4 rows of 8,192 tokens in an 8,192-token budget
  l.max_tokens_per_gpu = 8192;
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, l),
            LayoutRule::kMicrobatchFits);
  l.max_tokens_per_gpu = 4 * 8192;  // fits exactly
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, l), std::nullopt);
  l = layout("CP2 EP8");
  l.rows_per_microbatch = 2;  // 2 x 8,192 tokens over CP 2: 8,192 per GPU
  l.max_tokens_per_gpu = 8192;
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, l), std::nullopt);
  l.max_tokens_per_gpu = 8191;
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), PlanWorkload{}, l),
            LayoutRule::kMicrobatchFits);
}

TEST(LayoutRules, FullRecomputeLayersFitInAStageChunk) {
  Layout l = layout("PP4 EP8");  // 12 layers per stage
  l.recompute = Recompute{"full", "uniform", 12};
  EXPECT_EQ(first_broken_rule(shape(kQwen), h200(32), PlanWorkload{}, l), std::nullopt);
  l.recompute = Recompute{"full", "uniform", 13};
  EXPECT_EQ(first_broken_rule(shape(kQwen), h200(32), PlanWorkload{}, l), LayoutRule::kRecompute);
  l.vpp = 3;  // 4 layers per virtual chunk
  l.recompute = Recompute{"full", "block", 5};
  EXPECT_EQ(first_broken_rule(shape(kQwen), h200(32), PlanWorkload{}, l), LayoutRule::kRecompute);
  l.recompute = Recompute{"selective", "", {}};
  EXPECT_EQ(first_broken_rule(shape(kQwen), h200(32), PlanWorkload{}, l), std::nullopt);
}

TEST(LayoutRules, RecomputeModulesOnlyWithSelectiveRecompute) {
  Layout l = layout("PP4 EP8");
  l.recompute = Recompute{"selective", "", std::nullopt, {"moe_act", "layernorm"}};
  EXPECT_EQ(first_broken_rule(shape(kQwen), h200(32), PlanWorkload{}, l), std::nullopt);
  l.recompute = Recompute{"full", "uniform", 1, {"moe_act"}};
  std::vector<LayoutViolation> v = check_layout(shape(kQwen), h200(32), PlanWorkload{}, l);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(layout_rule_id(v[0].rule), "mesh.recompute");
  EXPECT_EQ(v[0].field, "layout.recompute.modules");
  EXPECT_EQ(v[0].found, "1 module(s)");
}

TEST(LayoutRules, FlexDispatcherNeedsTpTimesEpAboveOne) {
  // Megatron-Core's MoEFlexTokenDispatcher asserts TP x EP > 1.
  auto with = [&](const char* text, const char* dispatcher) {
    Layout l = layout(text);
    l.dispatcher = dispatcher;
    return check_layout(shape(kQwen), h200(32), PlanWorkload{}, l);
  };
  std::vector<LayoutViolation> v = with("PP4 EP1", "flex");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(layout_rule_id(v[0].rule), "mesh.flex_dispatcher");
  EXPECT_EQ(v[0].field, "layout.dispatcher");
  EXPECT_EQ(v[0].found, "flex with TP 1 x EP 1");
  EXPECT_TRUE(with("PP4 EP8", "flex").empty());
  EXPECT_TRUE(with("TP2 PP4 EP1", "flex").empty());  // TP alone makes the group
  EXPECT_TRUE(with("PP4 EP1", "alltoall").empty());
}

TEST(LayoutRules, TpCommunicationOverlapNeedsTpAboveOne) {
  // Megatron-LM's validate_args: TP 1 turns sequence parallelism off, and --tp-comm-overlap
  // asserts it.
  PlanWorkload overlap;
  overlap.tp_comm_overlap = true;
  auto rule = [&](const Layout& l) {
    return first_broken_rule(shape(kQwen), h200(32), overlap, l);
  };
  EXPECT_EQ(rule(layout("TP2 PP4 EP8")), std::nullopt);
  EXPECT_EQ(rule(layout("TP1 PP4 EP8")), LayoutRule::kTpCommOverlap);
  EXPECT_EQ(first_broken_rule(shape(kQwen), h200(32), PlanWorkload{}, layout("TP1 PP4 EP8")),
            std::nullopt);
  std::vector<LayoutViolation> v =
      check_layout(shape(kQwen), h200(32), overlap, layout("TP1 PP4 EP8"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(layout_rule_id(v[0].rule), "mesh.tp_comm_overlap");
  EXPECT_EQ(v[0].field, "layout.tp");
  EXPECT_EQ(v[0].found, "1");
}

TEST(LayoutRules, SharedExpertOverlapNeedsAlltoallAndNoEpAllToAllOverlap) {
  // Megatron-Core's TransformerConfig.__post_init__ for --moe-shared-expert-overlap: Qwen3.5 has
  // a shared expert, so only the alltoall dispatcher takes the overlap.
  PlanWorkload overlap;
  overlap.shared_expert_overlap = true;
  auto rule = [&](const Layout& l, const PlanWorkload& w) {
    return first_broken_rule(shape(kQwen), h200(32), w, l);
  };
  Layout alltoall = layout("PP4 VPP2 EP8");
  alltoall.dispatcher = "alltoall";
  Layout flex = alltoall, allgather = alltoall;
  flex.dispatcher = "flex";
  allgather.dispatcher = "allgather";
  EXPECT_EQ(rule(alltoall, overlap), std::nullopt);
  EXPECT_EQ(rule(flex, overlap), LayoutRule::kSharedExpertOverlap);
  EXPECT_EQ(rule(allgather, overlap), LayoutRule::kSharedExpertOverlap);
  EXPECT_EQ(rule(flex, PlanWorkload{}), std::nullopt);  // no overlap, no rule
  std::vector<LayoutViolation> v = check_layout(shape(kQwen), h200(32), overlap, flex);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(layout_rule_id(v[0].rule), "mesh.shared_expert_overlap");
  EXPECT_EQ(v[0].field, "layout.dispatcher");
  EXPECT_EQ(v[0].found, "flex");
  // Beside the A2A/1F1B overlap it is refused whatever the dispatcher.
  PlanWorkload both = overlap;
  both.ep_a2a_overlap = true;
  EXPECT_EQ(rule(alltoall, both), LayoutRule::kSharedExpertOverlap);
  // A model without shared experts (gpt-oss) is not held to the dispatcher.
  Layout gpt_flex = layout("TP1 EP8");
  gpt_flex.dispatcher = "flex";
  EXPECT_EQ(first_broken_rule(shape(kGptOss), h200(8), overlap, gpt_flex), std::nullopt);
}

TEST(LayoutRules, EpAllToAllOverlapNeedsEpAFitDispatcherNoFullRecomputeAndVpp) {
  // Megatron-LM's validate_args for --overlap-moe-expert-parallel-comm.
  PlanWorkload overlap;
  overlap.ep_a2a_overlap = true;
  auto rule = [&](const Layout& l) {
    return first_broken_rule(shape(kQwen), h200(32), overlap, l);
  };
  EXPECT_EQ(rule(layout("PP1 EP8")), std::nullopt);  // PP 1: the combined 1F1B needs no VPP
  EXPECT_EQ(rule(layout("PP4 VPP2 EP8")), std::nullopt);
  EXPECT_EQ(rule(layout("PP4 EP8")), LayoutRule::kEpA2aOverlap);  // pipelined without VPP
  EXPECT_EQ(rule(layout("PP1 EP1")), LayoutRule::kEpA2aOverlap);  // no expert parallelism
  Layout allgather = layout("PP1 EP8");
  allgather.dispatcher = "allgather";
  EXPECT_EQ(rule(allgather), LayoutRule::kEpA2aOverlap);
  Layout flex = layout("PP1 EP8");
  flex.dispatcher = "flex";
  EXPECT_EQ(rule(flex), std::nullopt);
  Layout full = layout("PP4 VPP2 EP8");
  full.recompute = Recompute{"full", "uniform", 1};
  EXPECT_EQ(rule(full), LayoutRule::kEpA2aOverlap);
  full.recompute = Recompute{"selective", "", {}};
  EXPECT_EQ(rule(full), std::nullopt);
  // Without the overlap none of this is a rule.
  EXPECT_EQ(first_broken_rule(shape(kQwen), h200(32), PlanWorkload{}, layout("PP4 EP8")),
            std::nullopt);
  // The violation names the field and what was found.
  std::vector<LayoutViolation> v = check_layout(shape(kQwen), h200(32), overlap, layout("PP4 EP8"));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(layout_rule_id(v[0].rule), "mesh.ep_a2a_overlap");
  EXPECT_EQ(v[0].field, "layout.vpp");
  EXPECT_EQ(v[0].found, "1");
}

TEST(LayoutRules, CheckLayoutReportsEveryBrokenRule) {
  Layout l = layout("TP2 PP5 EP3");
  l.sequence_parallel = false;
  std::vector<LayoutViolation> v = check_layout(shape(kGptOss), h200(20), PlanWorkload{}, l);
  std::vector<std::string> ids;
  for (const LayoutViolation& violation : v) ids.push_back(layout_rule_id(violation.rule));
  EXPECT_EQ(ids, (std::vector<std::string>{"mesh.sp", "mesh.ep", "mesh.expert_dp", "mesh.pp"}));
}

}  // namespace
}  // namespace openrecipes
