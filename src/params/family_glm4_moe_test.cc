// GLM-4.5 (glm4_moe). No glm4_moe config.json was found in the searchable public repositories
// (see the branch report), so the reader is checked on the real ERNIE-4.5-21B-A3B config
// (tests/fixtures/configs/ernie-4.5-21b-a3b) with its fields renamed to glm4_moe's: the same
// architecture (dense first layer, shared experts, GQA) must give the same N.
#include "params/family_glm4_moe.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

// The ERNIE fixture in glm4_moe's field names (modeling_glm4_moe.py, Glm4MoeConfig).
std::string sibling() {
  std::string text =
      testing::read_source_file("tests/fixtures/configs/ernie-4.5-21b-a3b/config.json");
  text = testing::replace_all(text, "\"ernie4_5_moe\"", "\"glm4_moe\"");
  text = testing::replace_all(text, "\"moe_num_experts\"", "\"n_routed_experts\"");
  text = testing::replace_all(text, "\"moe_k\"", "\"num_experts_per_tok\"");
  text = testing::replace_all(text, "\"moe_num_shared_experts\"", "\"n_shared_experts\"");
  return testing::replace_all(text, "\"moe_layer_start_index\"", "\"first_k_dense_replace\"");
}

std::optional<ActiveParamCount> count_text(const std::string& text, Problems& problems) {
  std::optional<HfConfig> config = HfConfig::parse(text, "glm.json", problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

// As for ERNIE-4.5-21B-A3B (family_ernie4_5_moe_test.cc): first_k_dense_replace 1 makes layer 0
// dense, n_shared_experts 2 a shared SwiGLU of 2 x 1536; N = 28 x 15,728,640 + 94,371,840
// + 27 x (70,778,880 + 23,592,960 + 163,840) + 264,765,440 = 3,352,002,560.
TEST(Glm4Moe, CountsLikeTheSameArchitecture) {
  Problems problems;
  auto result = count_text(sibling(), problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "glm4_moe");
  EXPECT_EQ(result->active_params, 3'352'002'560);
  std::optional<HfConfig> config = HfConfig::parse(sibling(), "glm.json", problems);
  auto shape = model_shape_from_config(*config, "glm", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->moe_layers, 27);
  EXPECT_EQ(shape->dense_mlp_layers, 1);
  EXPECT_EQ(shape->mtp_layers, 1);
  EXPECT_EQ(shape->shared_expert_ffn_hidden_size, 3072);
  EXPECT_EQ(shape->router_params, 2560 * 64);
}

// Glm4MoeConfig's default is one shared expert: the shared SwiGLU shrinks from 3 x 2560 x 3072
// to 3 x 2560 x 1536, 11,796,480 less on each of 27 layers: 3,352,002,560 - 318,504,960.
TEST(Glm4Moe, OneSharedExpertByDefault) {
  Problems problems;
  auto result =
      count_text(testing::replace_all(sibling(), "\"n_shared_experts\": 2,", ""), problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->active_params, 3'033'497'600);
}

TEST(Glm4Moe, BadConfigsAreClearProblems) {
  auto refuse = [](const std::string& from, const std::string& to, const std::string& field,
                   const std::string& message) {
    Problems problems;
    EXPECT_FALSE(count_text(testing::replace_all(sibling(), from, to), problems)) << from;
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    EXPECT_NE(problems[0].message.find(message), std::string::npos) << testing::describe(problems);
    EXPECT_FALSE(problems[0].found.empty());
  };
  refuse("\"first_k_dense_replace\": 1", "\"first_k_dense_replace\": 29", "first_k_dense_replace",
         "more dense layers than layers");
  refuse("\"num_experts_per_tok\": 6", "\"num_experts_per_tok\": 65", "num_experts_per_tok",
         "more experts per token than experts");
  refuse("\"n_routed_experts\": 64,", "", "n_routed_experts", "missing required field");
  refuse("\"n_shared_experts\": 2", "\"n_shared_experts\": -1", "n_shared_experts", "too small");
}

}  // namespace
}  // namespace openrecipes
