// Phi-3/Phi-4 (model_type phi3) on microsoft/phi-4's config.json
// (tests/fixtures/configs/phi-4, with its source.yaml).
#include "params/family_phi3.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char* kPhi4 = "tests/fixtures/configs/phi-4/config.json";

std::optional<HfConfig> parse(const std::string& text, Problems& problems) {
  return HfConfig::parse(text, "phi-4.json", problems);
}

TEST(Phi3, Phi4CountsTheFusedMatricesByHand) {
  Problems problems;
  auto count = count_active_params_of_file(testing::source_dir() + "/" + kPhi4, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  // H 5120, 40 heads of 128, 10 KV heads: qkv 5120 x (5120 + 2 x 1280) = 39,321,600 and
  // o 5120 x 5120 = 26,214,400, so attention 65,536,000 per layer.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{40} * 65'536'000);
  // gate_up 5120 x 35,840 + down 17,920 x 5120 = 3 x 5120 x 17,920 = 275,251,200 per layer.
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{40} * 275'251'200);
  // lm_head 5120 x 100,352 = 513,802,240.
  EXPECT_EQ(testing::component_total(*count, "output layer"), 513'802'240);
  // N = 40 x 340,787,200 + 513,802,240 = 14,145,290,240.
  EXPECT_EQ(count->active_params, 14'145'290'240);
  EXPECT_EQ(count->components.size(), 3u);
}

TEST(Phi3, Phi4TotalMatchesThePublishedSize) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kPhi4, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // Weights of the shape: embedding and lm_head 2 x 513,802,240 + 40 x (65,536,000 +
  // 275,251,200) = 14,659,092,480; add the RMSNorms (input and post-attention per layer,
  // 40 x 2 x 5120, and the final 5120: 414,720) and no biases: 14,659,507,200.
  EXPECT_EQ(shape->total_params(), 14'659'092'480);
  std::int64_t total = shape->total_params() + 40 * 2 * 5120 + 5120;
  EXPECT_EQ(total, 14'659'507'200);
  // The model card of microsoft/phi-4 gives 14.7B parameters (the report's headline is "14B"):
  // 14.66B is within the rounding of 14.7B.
  EXPECT_GE(total, 14'650'000'000);
  EXPECT_LT(total, 14'750'000'000);
}

TEST(Phi3, Phi4ShapeHasTheSlidingWindowOnEveryLayer) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kPhi4, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->model_type, "phi3");
  EXPECT_EQ(shape->layers, 40);
  EXPECT_EQ(shape->attention_heads, 40);
  EXPECT_EQ(shape->kv_heads, 10);
  EXPECT_EQ(shape->head_dim, 128);  // 5120 / 40: phi-4 has no head_dim
  EXPECT_EQ(shape->attention_layers, 40);
  EXPECT_EQ(shape->sliding_window_layers, 40);  // Phi3Attention gives every layer the window
  EXPECT_EQ(shape->sliding_window, 16384);
  EXPECT_EQ(shape->dense_mlp_layers, 40);
  EXPECT_EQ(shape->dense_ffn_hidden_size, 17920);
  EXPECT_TRUE(shape->gated_mlp);
  EXPECT_FALSE(shape->is_moe());
  EXPECT_FALSE(shape->tied_embeddings);
  EXPECT_EQ(shape->active_params, 14'145'290'240);
}

TEST(Phi3, TiedEmbeddingsKeepTheOutputLayerInN) {
  std::string text =
      testing::replace_all(testing::read_source_file(kPhi4), "\"tie_word_embeddings\": false",
                           "\"tie_word_embeddings\": true");
  Problems problems;
  auto config = parse(text, problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->active_params, 14'145'290'240);  // lm_head counted once, tied or not
  EXPECT_EQ(shape->total_params(), 14'659'092'480 - 513'802'240);  // but stored once
}

TEST(Phi3, NoWindowMeansFullAttention) {
  std::string text = testing::replace_all(testing::read_source_file(kPhi4),
                                          "\"sliding_window\": 16384", "\"sliding_window\": null");
  Problems problems;
  auto config = parse(text, problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->sliding_window_layers, 0);
  EXPECT_EQ(shape->sliding_window, 0);
}

struct BadPhi3 {
  std::string name, from, to, field, message;
};

void PrintTo(const BadPhi3& c, std::ostream* os) { *os << c.name; }

class BadPhi3Test : public ::testing::TestWithParam<BadPhi3> {};

TEST_P(BadPhi3Test, IsAProblemNamingTheField) {
  const BadPhi3& c = GetParam();
  std::string text = testing::replace_all(testing::read_source_file(kPhi4), c.from, c.to);
  ASSERT_NE(text, testing::read_source_file(kPhi4)) << "the edit did not apply";
  Problems problems;
  auto config = parse(text, problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  EXPECT_FALSE(count_active_params(*config, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, "phi-4.json");
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_FALSE(problems[0].expected.empty());
  EXPECT_FALSE(problems[0].found.empty());
  EXPECT_GT(problems[0].position.line, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadPhi3Test,
    ::testing::Values(
        BadPhi3{"KvHeadsNotDividing", "\"num_key_value_heads\": 10", "\"num_key_value_heads\": 7",
                "num_key_value_heads", "must divide the attention heads"},
        // 5120 / 30 is no whole head: without head_dim the heads must divide the hidden size.
        BadPhi3{"HeadsNotDividingHidden", "\"num_attention_heads\": 40",
                "\"num_attention_heads\": 30", "num_attention_heads", "must divide hidden_size"},
        BadPhi3{"MissingMlpWidth", "\"intermediate_size\": 17920,", "", "intermediate_size",
                "missing required field"},
        BadPhi3{"StringWindow", "\"sliding_window\": 16384", "\"sliding_window\": \"16384\"",
                "sliding_window", "wrong type"},
        BadPhi3{"ZeroLayers", "\"num_hidden_layers\": 40", "\"num_hidden_layers\": 0",
                "num_hidden_layers", "too small"}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace openrecipes
