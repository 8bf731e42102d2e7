// GLM-4.5 (glm4_moe), counted from the real zai-org/GLM-4.5-Air config
// (tests/fixtures/configs/glm-4.5-air, source.yaml beside it), worked by hand below, and the bad
// configs the reader refuses (each an edit of that file).
#include "params/family_glm4_moe.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char kGlm45Air[] = "tests/fixtures/configs/glm-4.5-air/config.json";

std::string air() { return testing::read_source_file(kGlm45Air); }

std::optional<ActiveParamCount> count_glm4_moe(const std::string& text, Problems& problems) {
  std::optional<HfConfig> config = HfConfig::parse(text, "glm.json", problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

// hidden 4096, 96 heads and 8 KV heads of 128, 46 layers, first_k_dense_replace 1:
//   attention: q 4096x12288 = 50,331,648 + k 4096x1024 = 4,194,304 + v 4,194,304
//              + o 12288x4096 = 50,331,648 = 109,051,904 (x 46)
//   dense MLP: 3 x 4096 x 10944 = 134,479,872 (x 1)
//   routed experts: 8 x 3 x 4096 x 1408 = 8 x 17,301,504 = 138,412,032 (x 45);
//   shared expert 17,301,504 (x 45); router 4096 x 128 = 524,288 (x 45)
//   output layer: 4096 x 151552 = 620,756,992
// N = 5,016,387,584 + 134,479,872 + 45 x 156,237,824 + 620,756,992 = 12,802,326,528.
TEST(Glm4Moe, Glm45AirCountsByHand) {
  Problems problems;
  auto result = count_glm4_moe(air(), problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "glm4_moe");
  EXPECT_EQ(testing::component_total(*result, "attention"), std::int64_t{46} * 109'051'904);
  EXPECT_EQ(testing::component_total(*result, "dense MLP"), 134'479'872);
  EXPECT_EQ(testing::component_total(*result, "routed experts"), std::int64_t{45} * 138'412'032);
  EXPECT_EQ(testing::component_total(*result, "shared experts"), std::int64_t{45} * 17'301'504);
  EXPECT_EQ(testing::component_total(*result, "router"), std::int64_t{45} * 524'288);
  EXPECT_EQ(testing::component_total(*result, "output layer"), 620'756'992);
  EXPECT_EQ(result->active_params, 12'802'326'528);
  EXPECT_EQ(result->left_out.back(), "1 multi-token-prediction layer");
}

TEST(Glm4Moe, Glm45AirShapeRebuildsThePublishedSize) {
  Problems problems;
  std::optional<HfConfig> config = HfConfig::parse(air(), "glm.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  auto shape = model_shape_from_config(*config, "glm", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->moe_layers, 45);
  EXPECT_EQ(shape->dense_mlp_layers, 1);
  EXPECT_EQ(shape->mtp_layers, 1);
  EXPECT_EQ(shape->kv_heads, 8);
  EXPECT_EQ(shape->head_dim, 128);
  EXPECT_EQ(shape->experts, 128);
  EXPECT_EQ(shape->shared_expert_ffn_hidden_size, 1408);
  EXPECT_EQ(shape->router_params, 4096 * 128);
  EXPECT_EQ(shape->active_params, 12'802'326'528);
  // total_params: embedding and output 2 x 620,756,992 + 46 x 109,051,904 + 134,479,872
  // + 45 x (128 x 17,301,504 + 17,301,504 + 524,288) = 106,851,205,120. Added back: the q, k, v
  // biases 46 x 14,336, norms 46 x 8,192 + 4,096 and the routers' correction biases 45 x 128:
  // 106,852,251,264, the model card's "106B total parameters". The MTP layer (eh_proj
  // 8192x4096, three norms, one MoE decoder layer with its biases and norms) adds 2,375,059,584:
  // 109,227,310,848, the Hugging Face page's "110B" (its safetensors count), within its rounding.
  EXPECT_EQ(shape->total_params(), 106'851'205'120);
  const std::int64_t main_model =
      shape->total_params() + 46 * 14'336 + 46 * 8'192 + 4'096 + 45 * 128;
  EXPECT_EQ(main_model, 106'852'251'264);
  EXPECT_GE(main_model, 106'000'000'000);
  EXPECT_LT(main_model, 107'000'000'000);
  const std::int64_t mtp = 8192 * 4096 + 3 * 4096 + 109'051'904 + 14'336 + 8'192 +
                           129 * std::int64_t{17'301'504} + 524'288 + 128;
  EXPECT_EQ(mtp, 2'375'059'584);
  EXPECT_LT(std::llabs(main_model + mtp - 110'000'000'000), 1'000'000'000);
}

// Glm4MoeConfig's default is one shared expert, as the file states: without the field N stays;
// with two, each of the 45 MoE layers gains 17,301,504.
TEST(Glm4Moe, OneSharedExpertByDefault) {
  Problems problems;
  auto unstated =
      count_glm4_moe(testing::replace_all(air(), "\"n_shared_experts\": 1,", ""), problems);
  ASSERT_TRUE(unstated) << testing::describe(problems);
  EXPECT_EQ(unstated->active_params, 12'802'326'528);
  auto two = count_glm4_moe(
      testing::replace_all(air(), "\"n_shared_experts\": 1,", "\"n_shared_experts\": 2,"),
      problems);
  ASSERT_TRUE(two) << testing::describe(problems);
  EXPECT_EQ(two->active_params, 12'802'326'528 + std::int64_t{45} * 17'301'504);
}

TEST(Glm4Moe, BadConfigsAreClearProblems) {
  auto refuse = [](const std::string& from, const std::string& to, const std::string& field,
                   const std::string& message) {
    Problems problems;
    ASSERT_NE(air().find(from), std::string::npos) << from;
    EXPECT_FALSE(count_glm4_moe(testing::replace_all(air(), from, to), problems)) << from;
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    EXPECT_NE(problems[0].message.find(message), std::string::npos) << testing::describe(problems);
    EXPECT_FALSE(problems[0].found.empty());
  };
  refuse("\"first_k_dense_replace\": 1", "\"first_k_dense_replace\": 47", "first_k_dense_replace",
         "more dense layers than layers");
  refuse("\"num_experts_per_tok\": 8", "\"num_experts_per_tok\": 129", "num_experts_per_tok",
         "more experts per token than experts");
  refuse("\"n_routed_experts\": 128,", "", "n_routed_experts", "missing required field");
  refuse("\"n_shared_experts\": 1", "\"n_shared_experts\": -1", "n_shared_experts", "too small");
}

}  // namespace
}  // namespace openrecipes
