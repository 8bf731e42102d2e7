// K-EXAONE (exaone_moe). No exaone_moe config.json was found as a file in the searchable public
// repositories (see the branch report), so the reader is checked on the real ERNIE-4.5-21B-A3B
// config (tests/fixtures/configs/ernie-4.5-21b-a3b) with its fields renamed to K-EXAONE's: the
// same architecture must give the same N.
#include "params/family_exaone_moe.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

// The ERNIE fixture in ExaoneMoeConfig's field names.
std::string sibling() {
  std::string text =
      testing::read_source_file("tests/fixtures/configs/ernie-4.5-21b-a3b/config.json");
  text = testing::replace_all(text, "\"ernie4_5_moe\"", "\"exaone_moe\"");
  text = testing::replace_all(text, "\"moe_num_experts\"", "\"num_experts\"");
  text = testing::replace_all(text, "\"moe_k\"", "\"num_experts_per_tok\"");
  text = testing::replace_all(text, "\"moe_num_shared_experts\"", "\"num_shared_experts\"");
  return testing::replace_all(text, "\"moe_layer_start_index\"", "\"first_k_dense_replace\"");
}

// `sibling()` with `fields` added.
std::string with(const std::string& fields) {
  return testing::replace_all(sibling(), "\"use_bias\": false,", "\"use_bias\": false, " + fields);
}

std::optional<ModelShape> exaone_shape(const std::string& text, Problems& problems) {
  std::optional<HfConfig> config = HfConfig::parse(text, "exaone.json", problems);
  if (!config) return std::nullopt;
  return model_shape_from_config(*config, "", problems);
}

// As for ERNIE-4.5-21B-A3B (family_ernie4_5_moe_test.cc): N = 3,352,002,560. Neither
// layer_types nor sliding_window: no sliding layers.
TEST(ExaoneMoe, CountsLikeTheSameArchitecture) {
  Problems problems;
  auto shape = exaone_shape(sibling(), problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->model_type, "exaone_moe");
  EXPECT_EQ(shape->active_params, 3'352'002'560);
  EXPECT_EQ(shape->sliding_window_layers, 0);
}

// A 4096-token window and ExaoneMoeConfig's pattern 4: layers with (i + 1) % 4 != 0 slide,
// 28 - 7 = 21 of them; a layer_types list, when given, decides instead (here 2 sliding).
TEST(ExaoneMoe, SlidingLayers) {
  Problems problems;
  auto shape = exaone_shape(with("\"sliding_window\": 4096,"), problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->sliding_window_layers, 21);
  EXPECT_EQ(shape->sliding_window, 4096);
  std::string types = "\"layer_types\": [\"sliding_attention\", \"sliding_attention\"";
  for (int i = 2; i < 28; ++i) types += ", \"full_attention\"";
  shape = exaone_shape(with("\"sliding_window\": 128, " + types + "],"), problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->sliding_window_layers, 2);
  EXPECT_EQ(shape->sliding_window, 128);
  EXPECT_EQ(shape->active_params, 3'352'002'560);  // a window changes no weight
}

TEST(ExaoneMoe, BadConfigsAreClearProblems) {
  auto refuse = [](const std::string& text, const std::string& field, const std::string& message) {
    Problems problems;
    EXPECT_FALSE(exaone_shape(text, problems)) << field;
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    EXPECT_NE(problems[0].message.find(message), std::string::npos) << testing::describe(problems);
  };
  refuse(with("\"layer_types\": [\"full_attention\"],"), "layer_types", "must list every layer");
  std::string types = "\"layer_types\": [\"local_attention\"";
  for (int i = 1; i < 28; ++i) types += ", \"full_attention\"";
  refuse(with(types + "],"), "layer_types[0]", "unknown layer kind");
  refuse(with("\"mlp_layer_types\": [\"dense\", \"sparse\"],"), "mlp_layer_types",
         "must list every layer");
  refuse(with("\"sliding_window\": 4096, \"sliding_window_pattern\": \"LLLG\","),
         "sliding_window_pattern", "wrong type");
  refuse(
      testing::replace_all(sibling(), "\"num_experts_per_tok\": 6", "\"num_experts_per_tok\": 65"),
      "num_experts_per_tok", "more experts per token than experts");
}

}  // namespace
}  // namespace openrecipes
