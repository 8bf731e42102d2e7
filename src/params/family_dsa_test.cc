// MLA with DeepSeek sparse attention: the real DeepSeek-V3.2-Exp and GLM-5.1 configs counted by
// hand, their totals rebuilt and set beside the published sizes, and the bad configs the reader
// refuses (each an edit of the DeepSeek-V3.2-Exp fixture).
#include "params/family_dsa.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char kDeepSeekV32[] = "tests/fixtures/configs/deepseek-v3.2-exp/config.json";

const ParamComponent* component(const ActiveParamCount& c, const std::string& name) {
  for (const ParamComponent& p : c.components) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::optional<HfConfig> parse(const std::string& text, Problems& problems) {
  return HfConfig::parse(text, "dsa.json", problems);
}

std::string fixture_with(const std::string& from, const std::string& to) {
  return testing::replace_all(testing::read_source_file(kDeepSeekV32), from, to);
}

// A list of `n` copies of `kind` for a per-layer field, optionally with a different first entry.
std::string layer_list(const std::string& key, int n, const std::string& kind,
                       const std::string& first = "") {
  std::string list = "\"" + key + "\": [";
  for (int i = 0; i < n; ++i)
    list += std::string(i ? ", " : "") + "\"" + (i == 0 && !first.empty() ? first : kind) + "\"";
  return list + "], ";
}

TEST(SparseAttention, DeepSeekV32CountsByHand) {
  Problems problems;
  auto result = count_active_params_of_file(testing::source_dir() + "/" + kDeepSeekV32, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  // Per layer (hidden 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128):
  //   MLA: q_a 7168x1536 = 11,010,048 + q_b 1536x24576 = 37,748,736 + kv_a 7168x576 = 4,128,768
  //        + kv_b 512x32768 = 16,777,216 + o 16384x7168 = 117,440,512 = 187,105,280 (x 61)
  //   indexer: wq_b 1536x8192 = 12,582,912 + wk 7168x128 = 917,504 + weights_proj 7168x64
  //        = 458,752 = 13,959,168 (x 61)
  //   dense MLP: 3 x 7168 x 18432 = 396,361,728 (x 3, first_k_dense_replace)
  //   routed experts: 8 x 3 x 7168 x 2048 = 8 x 44,040,192 = 352,321,536 (x 58)
  //   shared expert: 44,040,192 (x 58); router 7168x256 = 1,835,008 (x 58)
  //   output layer: 7168 x 129280 = 926,679,040
  // N = 61 x 201,064,448 + 3 x 396,361,728 + 58 x 398,196,736 + 926,679,040
  //   = 12,264,931,328 + 1,189,085,184 + 23,095,410,688 + 926,679,040 = 37,476,106,240,
  // DeepSeek-V3's 36,624,596,992 and 61 indexers (851,509,248).
  EXPECT_EQ(result->active_params, 37'476'106'240);
  ASSERT_TRUE(component(*result, "indexer"));
  EXPECT_EQ(component(*result, "indexer")->layers, 61);
  EXPECT_EQ(component(*result, "indexer")->per_layer, 13'959'168);
  EXPECT_EQ(component(*result, "attention")->per_layer, 187'105'280);
  EXPECT_EQ(component(*result, "dense MLP")->layers, 3);
  EXPECT_EQ(component(*result, "routed experts")->layers, 58);
  EXPECT_EQ(component(*result, "shared experts")->per_layer, 44'040'192);
  EXPECT_EQ(component(*result, "router")->per_layer, 1'835'008);
  EXPECT_EQ(component(*result, "output layer")->total, 926'679'040);
  std::int64_t sum = 0;
  for (const ParamComponent& p : result->components) sum += p.total;
  EXPECT_EQ(sum, result->active_params);
  EXPECT_EQ(result->left_out.back(), "1 multi-token-prediction layer");
}

TEST(SparseAttention, DeepSeekV32ShapeRebuildsThePublishedSize) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kDeepSeekV32, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->model_type, "deepseek_v32");
  EXPECT_EQ(shape->kv_heads, 128);
  EXPECT_EQ(shape->head_dim, 192);  // qk_nope 128 + qk_rope 64
  EXPECT_EQ(shape->indexer_heads, 64);
  EXPECT_EQ(shape->indexer_head_dim, 128);
  EXPECT_EQ(shape->indexer_top_k, 2048);
  EXPECT_EQ(shape->indexer_params, 13'959'168);
  EXPECT_EQ(shape->mtp_layers, 1);
  EXPECT_EQ(shape->moe_layers, 58);
  EXPECT_EQ(shape->dense_mlp_layers, 3);
  EXPECT_EQ(shape->experts, 256);
  EXPECT_EQ(shape->expert_ffn_hidden_size, 2048);
  EXPECT_EQ(shape->shared_expert_ffn_hidden_size, 2048);
  EXPECT_EQ(shape->active_params, 37'476'106'240);
  // total_params: embedding and output 2 x 926,679,040 + 61 x (MLA 187,105,280 + indexer
  // 13,959,168) + 3 x 396,361,728 + 58 x (256 x 44,040,192 + 44,040,192 + 1,835,008)
  // = 1,853,358,080 + 12,264,931,328 + 1,189,085,184 + 656,569,532,416 = 671,876,907,008.
  EXPECT_EQ(shape->total_params(), 671'876'907'008);
  // Added back: norms 61 x (input 7168 + post-attention 7168 + q_a 1536 + kv_a 512 + indexer key
  // LayerNorm weight 128) + final 7168 = 1,014,400; biases 61 x 128 (indexer key LayerNorm) + 58 x
  // 256 (router e_score_correction_bias) = 22,656. Main model: 671,877,944,064. Without its 61
  // indexers and their key norms (61 x 13,959,424) it is 671,026,419,200: DeepSeek-V3's main
  // model, published as "671B" (DeepSeek-V3 README), within that figure's rounding.
  const std::int64_t main_model = shape->total_params() + 1'014'400 + 22'656;
  EXPECT_EQ(main_model, 671'877'944'064);
  EXPECT_LT(std::llabs(main_model - std::int64_t{61} * 13'959'424 - 671'000'000'000), 500'000'000);
  // The MTP layer as the checkpoint stores it: eh_proj 7168x14336 = 102,760,448, its enorm, hnorm
  // and head norm 3 x 7168, one MoE decoder layer (201,064,448 + 11,320,164,352 with its norms
  // 16,512, key-norm bias 128 and router bias 256) and its own copies of the embedding and the
  // output layer (2 x 926,679,040): 13,477,385,728. Main + MTP = 685,355,329,792, the "685B" of
  // the Hugging Face model page (its safetensors count), within that figure's rounding.
  const std::int64_t mtp = 102'760'448 + 3 * 7168 + 201'064'448 + 11'320'164'352 + 16'512 + 128 +
                           256 + 2 * std::int64_t{926'679'040};
  EXPECT_EQ(mtp, 13'477'385'728);
  EXPECT_LT(std::llabs(main_model + mtp - 685'000'000'000), 500'000'000);
}

TEST(SparseAttention, GlmMoeDsaReadsTheSameLayer) {
  // GLM-5's modular_glm_moe_dsa.py derives its attention and indexer from DeepSeek-V3.2's; the
  // DeepSeek-V3.2 config under GLM-5's model_type counts the same.
  Problems problems;
  auto config = parse(fixture_with("\"deepseek_v32\"", "\"glm_moe_dsa\""), problems);
  ASSERT_TRUE(config);
  auto result = count_active_params(*config, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "glm_moe_dsa");
  EXPECT_EQ(result->active_params, 37'476'106'240);
}

TEST(SparseAttention, Glm51CountsByHandAndRebuildsThePublishedSize) {
  // The real zai-org/GLM-5.1 config (tests/fixtures/configs/glm-5.1, source.yaml beside it):
  // hidden 6144, 64 heads, q_lora 2048, kv_lora 512, nope 192, rope 64, v 256, 78 layers:
  //   MLA: q_a 6144x2048 = 12,582,912 + q_b 2048x(64 x 256) = 33,554,432 + kv_a 6144x576
  //        = 3,538,944 + kv_b 512x(64 x 448) = 14,680,064 + o 16384x6144 = 100,663,296
  //        = 165,019,648 (x 78)
  //   indexer (32 heads of 128): wq_b 2048x4096 = 8,388,608 + wk 6144x128 = 786,432
  //        + weights_proj 6144x32 = 196,608 = 9,371,648 (x 78)
  //   dense MLP: 3 x 6144 x 12288 = 226,492,416 (x 3)
  //   routed experts: 8 x 3 x 6144 x 2048 = 8 x 37,748,736 = 301,989,888 (x 75); shared
  //   37,748,736 (x 75); router 6144 x 256 = 1,572,864 (x 75); output 6144 x 154880 = 951,582,720
  // N = 78 x 174,391,296 + 3 x 226,492,416 + 75 x 341,311,488 + 951,582,720 = 40,831,942,656.
  Problems problems;
  const std::string path = testing::source_dir() + "/tests/fixtures/configs/glm-5.1/config.json";
  auto result = count_active_params_of_file(path, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "glm_moe_dsa");
  EXPECT_EQ(component(*result, "attention")->per_layer, 165'019'648);
  EXPECT_EQ(component(*result, "indexer")->per_layer, 9'371'648);
  EXPECT_EQ(component(*result, "indexer")->layers, 78);
  EXPECT_EQ(component(*result, "dense MLP")->layers, 3);
  EXPECT_EQ(component(*result, "routed experts")->per_layer, 301'989'888);
  EXPECT_EQ(component(*result, "routed experts")->layers, 75);
  EXPECT_EQ(component(*result, "output layer")->total, 951'582'720);
  EXPECT_EQ(result->active_params, 40'831'942'656);
  auto shape = model_shape_from_file(path, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->kv_heads, 64);
  EXPECT_EQ(shape->head_dim, 256);  // qk_nope 192 + qk_rope 64
  EXPECT_EQ(shape->indexer_heads, 32);
  EXPECT_EQ(shape->indexer_top_k, 2048);
  EXPECT_EQ(shape->mtp_layers, 1);
  // total_params: embedding and output 2 x 951,582,720 + 78 x (165,019,648 + 9,371,648)
  // + 3 x 226,492,416 + 75 x (256 x 37,748,736 + 37,748,736 + 1,572,864) = 743,910,014,976.
  // Added back: norms 78 x (6144 + 6144 + 2048 + 512 + indexer key LayerNorm 128) + 6144
  // = 1,174,272; biases 78 x 128 (indexer key LayerNorm) + 75 x 256 (router correction)
  // = 29,184: 743,911,218,432, GLM-5's published "744B" total parameters.
  EXPECT_EQ(shape->total_params(), 743'910'014'976);
  const std::int64_t main_model = shape->total_params() + 1'174'272 + 29'184;
  EXPECT_EQ(main_model, 743'911'218'432);
  EXPECT_LT(std::llabs(main_model - 744'000'000'000), 500'000'000);
}

TEST(SparseAttention, SharedIndexersAreCountedOnce) {
  // indexer_types (GLM-5.2's IndexShare): layers marked "shared" reuse the previous full layer's
  // top-k and have no indexer. All but layer 0 shared: 1 indexer, N = 37,476,106,240 - 60 x
  // 13,959,168 = 36,638,556,160.
  Problems problems;
  auto config =
      parse(fixture_with("\"hidden_act\"",
                         layer_list("indexer_types", 61, "shared", "full") + "\"hidden_act\""),
            problems);
  ASSERT_TRUE(config);
  auto result = count_active_params(*config, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(component(*result, "indexer")->layers, 1);
  EXPECT_EQ(result->active_params, 36'638'556'160);
}

TEST(SparseAttention, MlpLayerTypesOverrideFirstDense) {
  // mlp_layer_types with every layer "sparse": 61 MoE layers and no dense MLP although
  // first_k_dense_replace says 3. N = 37,476,106,240 - 3 x 396,361,728 + 3 x 398,196,736
  // = 37,481,611,264.
  Problems problems;
  auto config = parse(fixture_with("\"hidden_act\"",
                                   layer_list("mlp_layer_types", 61, "sparse") + "\"hidden_act\""),
                      problems);
  ASSERT_TRUE(config);
  auto result = count_active_params(*config, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(component(*result, "dense MLP"), nullptr);
  EXPECT_EQ(component(*result, "routed experts")->layers, 61);
  EXPECT_EQ(result->active_params, 37'481'611'264);
}

struct BadSparseConfig {
  std::string name;
  std::string from, to;  // an edit of the DeepSeek-V3.2-Exp config
  std::string field, message, expected, found;
};

void PrintTo(const BadSparseConfig& c, std::ostream* os) { *os << c.name; }

class BadSparseConfigTest : public ::testing::TestWithParam<BadSparseConfig> {};

TEST_P(BadSparseConfigTest, IsAClearProblem) {
  const BadSparseConfig& c = GetParam();
  Problems problems;
  auto config = parse(fixture_with(c.from, c.to), problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  EXPECT_FALSE(count_active_params(*config, problems));
  EXPECT_FALSE(model_shape_from_config(*config, "", problems));
  ASSERT_FALSE(problems.empty());
  const Problem& p = problems[0];
  EXPECT_EQ(p.file, "dsa.json");
  EXPECT_EQ(p.field, c.field) << testing::describe(problems);
  EXPECT_NE(p.message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_NE(p.expected.find(c.expected), std::string::npos) << testing::describe(problems);
  EXPECT_NE(p.found.find(c.found), std::string::npos) << testing::describe(problems);
  EXPECT_GT(p.position.line, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadSparseConfigTest,
    ::testing::Values(
        BadSparseConfig{"TopKAboveTheExperts", "\"num_experts_per_tok\": 8",
                        "\"num_experts_per_tok\": 300", "num_experts_per_tok", "too large",
                        "from 1 to 256", "300"},
        BadSparseConfig{"IndexerTypesShort", "\"hidden_act\"",
                        layer_list("indexer_types", 60, "full") + "\"hidden_act\"", "indexer_types",
                        "must list every layer", "61 entries", "60 entries"},
        BadSparseConfig{"UnknownIndexerType", "\"hidden_act\"",
                        layer_list("indexer_types", 61, "full", "dense") + "\"hidden_act\"",
                        "indexer_types[0]", "unknown layer kind", "full or shared", "\"dense\""},
        BadSparseConfig{"FirstLayerShares", "\"hidden_act\"",
                        layer_list("indexer_types", 61, "full", "shared") + "\"hidden_act\"",
                        "indexer_types[0]", "no earlier layer", "\"full\"", "\"shared\""},
        BadSparseConfig{"MlpTypesLong", "\"hidden_act\"",
                        layer_list("mlp_layer_types", 62, "sparse") + "\"hidden_act\"",
                        "mlp_layer_types", "must list every layer", "61 entries", "62 entries"},
        BadSparseConfig{"UnknownMlpType", "\"hidden_act\"",
                        layer_list("mlp_layer_types", 61, "sparse", "moe") + "\"hidden_act\"",
                        "mlp_layer_types[0]", "unknown layer kind", "dense or sparse", "\"moe\""},
        BadSparseConfig{"NoQueryLora", "\"q_lora_rank\": 1536", "\"q_lora_rank\": null",
                        "q_lora_rank", "missing required field", "an integer", "null"},
        BadSparseConfig{"NoIndexerHeads", "\"index_n_heads\": 64,\n", "", "index_n_heads",
                        "missing required field", "an integer", "nothing"},
        BadSparseConfig{"MoreDenseLayersThanLayers", "\"first_k_dense_replace\": 3",
                        "\"first_k_dense_replace\": 62", "first_k_dense_replace", "too large",
                        "from 0 to 61", "62"}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace openrecipes
