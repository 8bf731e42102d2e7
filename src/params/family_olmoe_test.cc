// OLMoE (model_type olmoe): the real allenai/OLMoE-1B-7B-0125-Instruct config
// (tests/fixtures/configs/olmoe-1b-7b-0125-instruct, source.yaml beside it) counted by hand and its
// total rebuilt; the reader's other paths on the Qwen3-30B-A3B fixture of the same matrices (GQA,
// top-k SwiGLU experts, a router, no shared expert) with its model_type set to olmoe and its
// expert width in `intermediate_size`, where OlmoeConfig keeps it: the built-in qwen3_moe count of
// the original gives the expected N.
#include "params/family_olmoe.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char* kQwen = "tests/fixtures/configs/qwen3-30b-a3b.json";

std::string as_olmoe(const std::string& from = "", const std::string& to = "") {
  std::string text = testing::read_source_file(kQwen);
  text = testing::replace_all(text, "\"model_type\": \"qwen3_moe\"", "\"model_type\": \"olmoe\"");
  text = testing::replace_all(text, "\"intermediate_size\": 6144", "\"intermediate_size\": 768");
  return from.empty() ? text : testing::replace_all(text, from, to);
}

TEST(Olmoe, RealConfigCountsByHandAndRebuildsThePublishedSize) {
  Problems problems;
  const std::string path =
      testing::source_dir() + "/tests/fixtures/configs/olmoe-1b-7b-0125-instruct/config.json";
  auto count = count_active_params_of_file(path, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "olmoe");
  // hidden 2048, 16 heads and 16 KV heads of 128, 16 layers, 64 experts of 1024, top-8:
  //   attention: 4 x 2048 x 2048 = 16,777,216; experts 8 x 3 x 2048 x 1024 = 8 x 6,291,456
  //   = 50,331,648; router 2048 x 64 = 131,072 (each x 16); output 2048 x 50304 = 103,022,592.
  // N = 16 x 67,239,936 + 103,022,592 = 1,178,861,568 (1.28B with the input embedding: the
  // card's "1.3B active").
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{16} * 16'777'216);
  EXPECT_EQ(testing::component_total(*count, "routed experts"), std::int64_t{16} * 50'331'648);
  EXPECT_EQ(testing::component_total(*count, "router"), std::int64_t{16} * 131'072);
  EXPECT_EQ(testing::component_total(*count, "output layer"), 103'022'592);
  EXPECT_EQ(count->active_params, 1'178'861'568);
  auto shape = model_shape_from_file(path, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->experts, 64);
  EXPECT_EQ(shape->experts_per_token, 8);
  EXPECT_EQ(shape->expert_ffn_hidden_size, 1024);
  // total_params: embedding and output 2 x 103,022,592 + 16 x (16,777,216 + 64 x 6,291,456
  // + 131,072) = 6,919,028,736. Norms 16 x (input, post-attention, q_norm and k_norm, 2048 each)
  // + final 2048 = 133,120: 6,919,161,856, the card's "6.9B total" ("7B" in its name).
  EXPECT_EQ(shape->total_params(), 6'919'028'736);
  const std::int64_t total = shape->total_params() + 133'120;
  EXPECT_EQ(total, 6'919'161'856);
  EXPECT_GE(total, 6'850'000'000);
  EXPECT_LT(total, 6'950'000'000);
}

TEST(Olmoe, CountsTheTopKExpertsAndTheRouter) {
  Problems problems;
  auto config = HfConfig::parse(as_olmoe(), "olmoe.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  auto count = count_active_params(*config, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  // 48 x (attention 18,874,368 + 8 experts x 3 x 2048 x 768 = 37,748,736 + router
  // 2048 x 128 = 262,144) + lm_head 311,164,928 = 3,041,656,832, the qwen3_moe count.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{48} * 18'874'368);
  EXPECT_EQ(testing::component_total(*count, "routed experts"), std::int64_t{48} * 37'748'736);
  EXPECT_EQ(testing::component_total(*count, "router"), std::int64_t{48} * 262'144);
  EXPECT_EQ(testing::component_total(*count, "shared experts"), 0);
  EXPECT_EQ(count->active_params, 3'041'656'832);
  Problems qwen_problems;
  auto qwen = count_active_params_of_file(testing::source_dir() + "/" + kQwen, qwen_problems);
  ASSERT_TRUE(qwen) << testing::describe(qwen_problems);
  EXPECT_EQ(count->active_params, qwen->active_params);
}

TEST(Olmoe, ShapeHasEveryExpert) {
  Problems problems;
  auto config = HfConfig::parse(as_olmoe(), "olmoe.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_TRUE(shape->is_moe());
  EXPECT_EQ(shape->moe_layers, 48);
  EXPECT_EQ(shape->dense_mlp_layers, 0);
  EXPECT_EQ(shape->experts, 128);
  EXPECT_EQ(shape->experts_per_token, 8);
  EXPECT_EQ(shape->expert_ffn_hidden_size, 768);
  EXPECT_EQ(shape->expert_params, 3 * 2048 * 768);
  EXPECT_EQ(shape->router_params, 2048 * 128);
  EXPECT_EQ(shape->shared_expert_params, 0);
  // All weights: embedding and lm_head 2 x 311,164,928 + 48 x (18,874,368 + 128 x 4,718,592
  // + 262,144) = 622,329,856 + 48 x 623,116,288 = 30,531,911,680.
  EXPECT_EQ(shape->total_params(), 30'531'911'680);
}

TEST(Olmoe, BadSizesAreProblems) {
  auto refuse = [](const std::string& from, const std::string& to, const std::string& field,
                   const std::string& message) {
    std::string text = as_olmoe(from, to);
    ASSERT_NE(text, as_olmoe()) << from;
    Problems problems;
    auto config = HfConfig::parse(text, "olmoe.json", problems);
    ASSERT_TRUE(config) << testing::describe(problems);
    EXPECT_FALSE(count_active_params(*config, problems));
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    EXPECT_NE(problems[0].message.find(message), std::string::npos) << testing::describe(problems);
  };
  refuse("\"num_experts_per_tok\": 8", "\"num_experts_per_tok\": 129", "num_experts_per_tok",
         "more experts per token than experts");
  refuse("\"num_experts\": 128", "\"num_experts\": 0", "num_experts", "too small");
  refuse("\"num_key_value_heads\": 4", "\"num_key_value_heads\": 5", "num_key_value_heads",
         "must divide the attention heads");
}

}  // namespace
}  // namespace openrecipes
