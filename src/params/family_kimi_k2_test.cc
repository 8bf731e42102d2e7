// Kimi K2 (`kimi_k2`): DeepSeek-V3's architecture under a model_type of its own (its config.json
// names DeepseekV3ForCausalLM and modeling_deepseek.py), so it is read as the built-in DeepSeek
// family. Counted from the real moonshotai/Kimi-K2-Instruct config
// (tests/fixtures/configs/kimi-k2-instruct, source.yaml beside it), worked by hand below.
#include <gtest/gtest.h>

#include <algorithm>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char kKimiK2[] = "tests/fixtures/configs/kimi-k2-instruct/config.json";

TEST(KimiK2, CountsByHand) {
  Problems problems;
  auto result = count_active_params_of_file(testing::source_dir() + "/" + kKimiK2, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "kimi_k2");
  // hidden 7168, 64 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128, 61 layers:
  //   MLA: q_a 7168x1536 = 11,010,048 + q_b 1536x(64 x 192) = 18,874,368 + kv_a 7168x576
  //        = 4,128,768 + kv_b 512x(64 x 256) = 8,388,608 + o 8192x7168 = 58,720,256
  //        = 101,122,048 (x 61)
  //   dense MLP: 3 x 7168 x 18432 = 396,361,728 (x 1, first_k_dense_replace)
  //   routed experts: 8 x 3 x 7168 x 2048 = 352,321,536 (x 60); shared 44,040,192 (x 60);
  //   router 7168 x 384 = 2,752,512 (x 60); output layer 7168 x 163840 = 1,174,405,120.
  // N = 6,168,444,928 + 396,361,728 + 60 x 399,114,240 + 1,174,405,120 = 31,686,066,176.
  EXPECT_EQ(testing::component_total(*result, "attention"), std::int64_t{61} * 101'122'048);
  EXPECT_EQ(testing::component_total(*result, "dense MLP"), 396'361'728);
  EXPECT_EQ(testing::component_total(*result, "routed experts"), std::int64_t{60} * 352'321'536);
  EXPECT_EQ(testing::component_total(*result, "router"), std::int64_t{60} * 2'752'512);
  EXPECT_EQ(testing::component_total(*result, "output layer"), 1'174'405'120);
  EXPECT_EQ(result->active_params, 31'686'066'176);
  // num_nextn_predict_layers is 0: no MTP layer to leave out.
  EXPECT_EQ(std::count(result->left_out.begin(), result->left_out.end(),
                       "1 multi-token-prediction layer"),
            0);
}

TEST(KimiK2, ShapeRebuildsThePublishedSize) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kKimiK2, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // MLA gives every one of the 64 heads its own key and value of 128 + 64 channels.
  EXPECT_EQ(shape->kv_heads, 64);
  EXPECT_EQ(shape->head_dim, 192);
  EXPECT_EQ(shape->mtp_layers, 0);
  EXPECT_EQ(shape->experts, 384);
  EXPECT_EQ(shape->experts_per_token, 8);
  EXPECT_EQ(shape->moe_layers, 60);
  EXPECT_EQ(shape->dense_mlp_layers, 1);
  EXPECT_EQ(shape->active_params, 31'686'066'176);
  // total_params: embedding and output 2 x 1,174,405,120 + 61 x 101,122,048 + 396,361,728
  // + 60 x (384 x 44,040,192 + 44,040,192 + 2,752,512) = 1,026,407,202,816. Norms 61 x (7168
  // + 7168 + 1536 + 512) + 7168 = 1,006,592 and the routers' correction biases 60 x 384 = 23,040
  // give 1,026,408,232,448: the model card's "1T total parameters" (1.03T).
  EXPECT_EQ(shape->total_params(), 1'026'407'202'816);
  const std::int64_t total = shape->total_params() + 1'006'592 + 23'040;
  EXPECT_EQ(total, 1'026'408'232'448);
  EXPECT_GE(total, 950'000'000'000);
  EXPECT_LT(total, 1'050'000'000'000);
}

TEST(KimiK2, IsListedAsSupported) {
  std::vector<std::string> types = supported_model_types();
  EXPECT_NE(std::find(types.begin(), types.end(), "kimi_k2"), types.end());
}

}  // namespace
}  // namespace openrecipes
