// Ling (bailing_moe, bailing_moe_v2). No bailing_moe config.json was found as a file in the
// searchable public repositories (see the branch report), so the reader is checked on the real
// ERNIE-4.5-21B-A3B config (tests/fixtures/configs/ernie-4.5-21b-a3b) with its fields renamed to
// Ling's: the same architecture must give the same N.
#include "params/family_bailing_moe.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

// The ERNIE fixture in Ling 2.0's field names (BailingMoeV2Config), as `model_type`.
std::string sibling(const std::string& model_type) {
  std::string text =
      testing::read_source_file("tests/fixtures/configs/ernie-4.5-21b-a3b/config.json");
  text = testing::replace_all(text, "\"ernie4_5_moe\"", "\"" + model_type + "\"");
  text = testing::replace_all(text, "\"moe_num_experts\"", "\"num_experts\"");
  text = testing::replace_all(text, "\"moe_k\"", "\"num_experts_per_tok\"");
  text = testing::replace_all(text, "\"moe_num_shared_experts\"", "\"num_shared_experts\"");
  return testing::replace_all(text, "\"moe_layer_start_index\"", "\"first_k_dense_replace\"");
}

std::optional<ActiveParamCount> count_text(const std::string& text, Problems& problems) {
  std::optional<HfConfig> config = HfConfig::parse(text, "ling.json", problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

const ParamComponent* find(const ActiveParamCount& c, const std::string& name) {
  for (const ParamComponent& p : c.components) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// As for ERNIE-4.5-21B-A3B (family_ernie4_5_moe_test.cc): N = 3,352,002,560. The fused
// query_key_value is 2560 x (20 + 2 x 4) x 128 = 2560 x 3584, the dense output 2560 x 2560: the
// same 15,728,640 as q, k, v and o.
TEST(BailingMoe, CountsLikeTheSameArchitecture) {
  for (const char* type : {"bailing_moe", "bailing_moe_v2"}) {
    Problems problems;
    auto result = count_text(sibling(type), problems);
    ASSERT_TRUE(result) << testing::describe(problems);
    EXPECT_EQ(result->model_type, type);
    EXPECT_EQ(result->active_params, 3'352'002'560);
    const ParamComponent* attention = find(*result, "attention");
    ASSERT_TRUE(attention);
    EXPECT_EQ(attention->per_layer, 15'728'640);
    EXPECT_EQ(attention->detail, "query_key_value 2560x3584 + dense 2560x2560");
  }
}

// moe_shared_expert_intermediate_size 1024 sets each shared expert's width: 2 x 1024 = 2048,
// 3 x 2560 x 2048 = 15,728,640 instead of 23,592,960 on 27 layers: 3,352,002,560 - 212,336,640.
// Without num_shared_experts (default 0) there are none: 3,352,002,560 - 27 x 23,592,960.
TEST(BailingMoe, SharedExpertWidth) {
  Problems problems;
  auto result = count_text(testing::replace_all(sibling("bailing_moe_v2"), "\"use_bias\": false,",
                                                "\"use_bias\": false, "
                                                "\"moe_shared_expert_intermediate_size\": 1024,"),
                           problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->active_params, 3'139'665'920);
  result = count_text(
      testing::replace_all(sibling("bailing_moe_v2"), "\"num_shared_experts\": 2,", ""), problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->active_params, 2'714'992'640);
  EXPECT_FALSE(find(*result, "shared experts"));
}

TEST(BailingMoe, BadConfigsAreClearProblems) {
  auto refuse = [](const std::string& from, const std::string& to, const std::string& field,
                   const std::string& message) {
    Problems problems;
    EXPECT_FALSE(count_text(testing::replace_all(sibling("bailing_moe_v2"), from, to), problems))
        << from;
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    EXPECT_NE(problems[0].message.find(message), std::string::npos) << testing::describe(problems);
  };
  refuse("\"first_k_dense_replace\": 1", "\"first_k_dense_replace\": 100", "first_k_dense_replace",
         "more dense layers than layers");
  refuse("\"num_experts_per_tok\": 6", "\"num_experts_per_tok\": 100", "num_experts_per_tok",
         "more experts per token than experts");
  refuse("\"num_key_value_heads\": 4", "\"num_key_value_heads\": 6", "num_key_value_heads",
         "must divide");
}

}  // namespace
}  // namespace openrecipes
