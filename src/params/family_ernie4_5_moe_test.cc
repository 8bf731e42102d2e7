// ERNIE-4.5 MoE, counted from the real ERNIE-4.5-21B-A3B config (tests/fixtures/configs/
// ernie-4.5-21b-a3b, with its source.yaml) by hand, and its bad variants.
#include "params/family_ernie4_5_moe.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char* kFixture = "tests/fixtures/configs/ernie-4.5-21b-a3b/config.json";

std::optional<ActiveParamCount> count_text(const std::string& text, Problems& problems) {
  std::optional<HfConfig> config = HfConfig::parse(text, "ernie.json", problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

// H 2560, 20 heads and 4 KV heads of 128: attention q 2560x2560 + k, v 2560x512 + o 2560x2560
// = 15,728,640 per layer. moe_layer_start_index 1, end -1 (layer 27), interval 1: layer 0 dense
// (3 x 2560 x 12288 = 94,371,840), layers 1-27 MoE: top-6 of 64 experts of 1536 (6 x 3 x 2560 x
// 1536 = 70,778,880), two shared experts as one SwiGLU of 3072 (3 x 2560 x 3072 = 23,592,960),
// router 2560 x 64 = 163,840. Output 103,424 x 2560 = 264,765,440 (tied, counted once).
// N = 28 x 15,728,640 + 94,371,840 + 27 x 94,535,680 + 264,765,440 = 3,352,002,560.
TEST(Ernie45Moe, CountsTheRealConfigByHand) {
  Problems problems;
  auto result = count_active_params_of_file(testing::source_dir() + "/" + kFixture, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "ernie4_5_moe");
  EXPECT_EQ(result->active_params, 3'352'002'560);
  EXPECT_EQ(testing::component_total(*result, "attention"), 28 * 15'728'640);
  EXPECT_EQ(testing::component_total(*result, "dense MLP"), 94'371'840);
  EXPECT_EQ(testing::component_total(*result, "routed experts"), 27 * 70'778'880);
  EXPECT_EQ(testing::component_total(*result, "shared experts"), 27 * 23'592'960);
  EXPECT_EQ(testing::component_total(*result, "router"), 27 * 163'840);
  EXPECT_EQ(testing::component_total(*result, "output layer"), 264'765'440);
  std::vector<std::string> left_out = {"input embedding", "norms", "biases",
                                       "1 multi-token-prediction layer"};
  EXPECT_EQ(result->left_out, left_out);
}

// All weights: embedding 264,765,440 (the output layer is the same matrix) + attention
// 440,401,920 + dense 94,371,840 + 27 x (64 x 11,796,480 + 23,592,960 + 163,840) =
// 21,825,290,240; + norms (28 x 2 x 2560 + 2560 = 145,920) + the routers' correction biases
// (27 x 64 = 1,728) = 21,825,437,888, MTP layer left out. The model card says "21B total"
// (baidu/ERNIE-4.5-21B-A3B-Paddle): the name truncates 21.8B, so the check is [21e9, 22e9).
TEST(Ernie45Moe, ShapeRebuildsThePublishedTotal) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kFixture, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->name, "ernie4_5_moe");
  EXPECT_EQ(shape->layers, 28);
  EXPECT_EQ(shape->kv_heads, 4);
  EXPECT_EQ(shape->head_dim, 128);
  EXPECT_EQ(shape->dense_mlp_layers, 1);
  EXPECT_EQ(shape->moe_layers, 27);
  EXPECT_EQ(shape->experts, 64);
  EXPECT_EQ(shape->experts_per_token, 6);
  EXPECT_EQ(shape->expert_ffn_hidden_size, 1536);
  EXPECT_EQ(shape->shared_expert_ffn_hidden_size, 3072);
  EXPECT_EQ(shape->mtp_layers, 1);
  EXPECT_TRUE(shape->tied_embeddings);
  EXPECT_EQ(shape->active_params, 3'352'002'560);
  EXPECT_EQ(shape->total_params(), 21'825'290'240);
  std::int64_t total = shape->total_params() + 145'920 + 1'728;
  EXPECT_GE(total, 21'000'000'000);
  EXPECT_LT(total, 22'000'000'000);
}

// moe_layer_interval 2: MoE where (i + 1) % 2 == 0 and i >= 1, layers 1, 3, ..., 27 (14); the
// other 14 dense.
TEST(Ernie45Moe, IntervalSkipsLayers) {
  std::string text = testing::replace_all(testing::read_source_file(kFixture),
                                          "\"moe_layer_interval\": 1", "\"moe_layer_interval\": 2");
  Problems problems;
  auto result = count_text(text, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(testing::component_total(*result, "dense MLP"), 14 * 94'371'840);
  EXPECT_EQ(testing::component_total(*result, "router"), 14 * 163'840);
}

struct BadErnie {
  std::string name, from, to, field, message;
};

void PrintTo(const BadErnie& c, std::ostream* os) { *os << c.name; }

class BadErnieTest : public ::testing::TestWithParam<BadErnie> {};

TEST_P(BadErnieTest, IsAClearProblem) {
  const BadErnie& c = GetParam();
  std::string text = testing::replace_all(testing::read_source_file(kFixture), c.from, c.to);
  Problems problems;
  EXPECT_FALSE(count_text(text, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, "ernie.json");
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_FALSE(problems[0].expected.empty());
  EXPECT_GT(problems[0].position.line, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadErnieTest,
    ::testing::Values(
        BadErnie{"TopKAboveExperts", "\"moe_k\": 6", "\"moe_k\": 65", "moe_k",
                 "more experts per token than experts"},
        BadErnie{"StartAfterEnd", "\"moe_layer_start_index\": 1", "\"moe_layer_start_index\": 28",
                 "moe_layer_start_index", "the first MoE layer comes after the last"},
        BadErnie{"EndOutsideTheModel", "\"moe_layer_interval\": 1,",
                 "\"moe_layer_interval\": 1, \"moe_layer_end_index\": 40,", "moe_layer_end_index",
                 "a layer index outside the model"},
        BadErnie{"ZeroInterval", "\"moe_layer_interval\": 1", "\"moe_layer_interval\": 0",
                 "moe_layer_interval", "too small"},
        BadErnie{"KvHeadsDoNotDivide", "\"num_key_value_heads\": 4", "\"num_key_value_heads\": 3",
                 "num_key_value_heads", "must divide"},
        BadErnie{"MissingExperts", "\"moe_num_experts\": 64,", "", "moe_num_experts",
                 "missing required field"},
        BadErnie{"StringTopK", "\"moe_k\": 6", "\"moe_k\": \"6\"", "moe_k", "wrong type"}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace openrecipes
