// Kimi K2 (`kimi_k2`): DeepSeek-V3's architecture under a model_type of its own (its config.json
// names DeepseekV3ForCausalLM and modeling_deepseek.py), so it is read as the built-in DeepSeek
// family. No verbatim Kimi K2 config.json with a citable repository was found in the indexed public
// repositories, so the test is on the real DeepSeek-V3 config under Kimi K2's model_type.
#include <gtest/gtest.h>

#include <algorithm>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

std::optional<HfConfig> deepseek_v3_as(const std::string& model_type, Problems& problems) {
  std::string text =
      testing::replace_all(testing::read_source_file("tests/fixtures/configs/deepseek-v3.json"),
                           "\"deepseek_v3\"", "\"" + model_type + "\"");
  return HfConfig::parse(text, "kimi.json", problems);
}

TEST(KimiK2, CountsAsDeepSeekV3) {
  Problems problems;
  auto config = deepseek_v3_as("kimi_k2", problems);
  ASSERT_TRUE(config);
  auto result = count_active_params(*config, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "kimi_k2");
  // DeepSeek-V3's hand count (active_params_test.cc): 61 x MLA 187,105,280 + 3 dense x
  // 396,361,728 + 58 x (8 x 44,040,192 + shared 44,040,192 + router 1,835,008) + 926,679,040.
  EXPECT_EQ(result->active_params, 36'624'596'992);
  EXPECT_EQ(result->left_out.back(), "1 multi-token-prediction layer");
}

TEST(KimiK2, ShapeIsMlaWithItsMtpLayers) {
  Problems problems;
  auto config = deepseek_v3_as("kimi_k2", problems);
  ASSERT_TRUE(config);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // As DeepSeek-V3: MLA gives every one of the 128 heads its own key and value of 128 + 64
  // channels, and num_nextn_predict_layers (not mtp_num_hidden_layers) counts the MTP layers.
  EXPECT_EQ(shape->kv_heads, 128);
  EXPECT_EQ(shape->head_dim, 192);
  EXPECT_EQ(shape->mtp_layers, 1);
  EXPECT_EQ(shape->experts, 256);
  EXPECT_EQ(shape->active_params, 36'624'596'992);
}

TEST(KimiK2, IsListedAsSupported) {
  std::vector<std::string> types = supported_model_types();
  EXPECT_NE(std::find(types.begin(), types.end(), "kimi_k2"), types.end());
}

}  // namespace
}  // namespace openrecipes
