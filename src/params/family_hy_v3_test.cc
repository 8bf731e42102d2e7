// Hy3 (hy_v3). No hy_v3 config.json was found as a file in the searchable public repositories
// (see the branch report), so the reader is checked on the real ERNIE-4.5-21B-A3B config
// (tests/fixtures/configs/ernie-4.5-21b-a3b) with its fields renamed to Hy3's: the same
// architecture must give the same N.
#include "params/family_hy_v3.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

// The ERNIE fixture in Hy3's field names (HYV3Config; Tencent's config.json has
// first_k_dense_replace and num_nextn_predict_layers too).
std::string sibling() {
  std::string text =
      testing::read_source_file("tests/fixtures/configs/ernie-4.5-21b-a3b/config.json");
  text = testing::replace_all(text, "\"ernie4_5_moe\"", "\"hy_v3\"");
  text = testing::replace_all(text, "\"moe_num_experts\"", "\"num_experts\"");
  text = testing::replace_all(text, "\"moe_k\"", "\"num_experts_per_tok\"");
  text = testing::replace_all(text, "\"moe_num_shared_experts\"", "\"num_shared_experts\"");
  return testing::replace_all(text, "\"moe_layer_start_index\"", "\"first_k_dense_replace\"");
}

// `sibling()` with an mlp_layer_types list of `layers` entries: "dense" for the first `dense`,
// then "sparse", and entry 3 replaced by `odd_one` when given.
std::string with_mlp_layer_types(int layers, int dense, const std::string& odd_one = "") {
  std::string list = "\"mlp_layer_types\": [";
  for (int i = 0; i < layers; ++i) {
    std::string kind = i < dense ? "dense" : "sparse";
    if (i == 3 && !odd_one.empty()) kind = odd_one;
    list += (i ? ", \"" : "\"") + kind + "\"";
  }
  return testing::replace_all(sibling(), "\"use_bias\": false,",
                              "\"use_bias\": false, " + list + "],");
}

std::optional<ActiveParamCount> count_text(const std::string& text, Problems& problems) {
  std::optional<HfConfig> config = HfConfig::parse(text, "hy3.json", problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

// As for ERNIE-4.5-21B-A3B (family_ernie4_5_moe_test.cc): N = 3,352,002,560.
TEST(HyV3, CountsLikeTheSameArchitecture) {
  Problems problems;
  auto result = count_text(sibling(), problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "hy_v3");
  EXPECT_EQ(result->active_params, 3'352'002'560);
}

// mlp_layer_types, when given, decides (first_k_dense_replace is then not read): two dense
// layers and 26 sparse: 28 x 15,728,640 + 2 x 94,371,840 + 26 x 94,535,680 + 264,765,440.
TEST(HyV3, MlpLayerTypesDecide) {
  Problems problems;
  std::optional<HfConfig> config =
      HfConfig::parse(with_mlp_layer_types(28, 2), "hy3.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->active_params, 3'351'838'720);
  EXPECT_EQ(shape->dense_mlp_layers, 2);
  EXPECT_EQ(shape->moe_layers, 26);
}

TEST(HyV3, BadConfigsAreClearProblems) {
  auto refuse = [](const std::string& text, const std::string& field, const std::string& message,
                   const std::string& found) {
    Problems problems;
    EXPECT_FALSE(count_text(text, problems)) << field;
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    EXPECT_NE(problems[0].message.find(message), std::string::npos) << testing::describe(problems);
    EXPECT_EQ(problems[0].found, found) << testing::describe(problems);
  };
  refuse(with_mlp_layer_types(27, 1), "mlp_layer_types", "must list every layer", "27 entries");
  refuse(with_mlp_layer_types(28, 1, "moe"), "mlp_layer_types[3]", "unknown layer kind", "\"moe\"");
  refuse(testing::replace_all(sibling(), "\"first_k_dense_replace\": 1",
                              "\"first_k_dense_replace\": 30"),
         "first_k_dense_replace", "more dense layers than layers", "30");
  refuse(
      testing::replace_all(sibling(), "\"num_experts_per_tok\": 6", "\"num_experts_per_tok\": 80"),
      "num_experts_per_tok", "more experts per token than experts", "80");
}

}  // namespace
}  // namespace openrecipes
