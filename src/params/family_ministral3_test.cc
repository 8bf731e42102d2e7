// Ministral 3 (model_type ministral3): Mistral's decoder with an explicit head_dim, read as the
// built-in dense family. Counted from two real configs of Mistral's December 2025 models that use
// it (tests/fixtures/configs, source.yaml beside each): Devstral 2 123B (a flat ministral3 file)
// and Devstral Small 2 24B (a mistral3 wrapper whose text_config is ministral3). No Ministral 3
// config.json itself was found in the indexed public repositories.
#include <gtest/gtest.h>

#include <algorithm>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

std::string fixture(const std::string& slug) {
  return testing::source_dir() + "/tests/fixtures/configs/" + slug + "/config.json";
}

TEST(Ministral3, Devstral2CountsByHandAndRebuildsItsSize) {
  Problems problems;
  auto count = count_active_params_of_file(fixture("devstral-2-123b-instruct"), problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "ministral3");
  // hidden 12288, 96 heads and 8 KV heads of 128, 88 layers, FFN 28672, vocabulary 131072:
  //   attention: q 12288x12288 = 150,994,944 + k 12288x1024 = 12,582,912 + v 12,582,912
  //              + o 150,994,944 = 327,155,712 (x 88)
  //   MLP: 3 x 12288 x 28672 = 1,056,964,608 (x 88); output 12288 x 131072 = 1,610,612,736
  // N = 88 x 1,384,120,320 + 1,610,612,736 = 123,413,200,896.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{88} * 327'155'712);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{88} * 1'056'964'608);
  EXPECT_EQ(count->active_params, 123'413'200'896);
  auto shape = model_shape_from_file(fixture("devstral-2-123b-instruct"), "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->kv_heads, 8);
  EXPECT_EQ(shape->head_dim, 128);
  EXPECT_EQ(shape->sliding_window_layers, 0);  // sliding_window null
  // total_params: + the input embedding 1,610,612,736 = 125,023,813,632; norms 88 x 2 x 12288
  // + 12288 = 2,174,976: 125,025,988,608. The card's "123B" is Mistral Large 2's figure for the
  // same layers with a 32,768-token vocabulary (122.6B); this vocabulary adds 2 x 12288 x 98304 =
  // 2,415,919,104, so the file's own count is 125.0B, 1.6% over the name.
  EXPECT_EQ(shape->total_params(), 125'023'813'632);
  const std::int64_t total = shape->total_params() + 88 * 2 * 12288 + 12288;
  EXPECT_EQ(total, 125'025'988'608);
  EXPECT_EQ(total - std::int64_t{2} * 12288 * (131072 - 32768), 122'610'069'504);
}

TEST(Ministral3, DevstralSmall2TextConfigHasItsOwnHeadDim) {
  Problems problems;
  auto count = count_active_params_of_file(fixture("devstral-small-2-24b-instruct"), problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "ministral3");  // the text_config's, not the wrapper's mistral3
  // hidden 5120 but 32 heads of 128 (4096 wide), 8 KV heads, 40 layers, FFN 32768:
  //   attention: q 5120x4096 = 20,971,520 + k 5120x1024 = 5,242,880 + v 5,242,880
  //              + o 4096x5120 = 20,971,520 = 52,428,800 (x 40)
  //   MLP: 3 x 5120 x 32768 = 503,316,480 (x 40); output 5120 x 131072 = 671,088,640
  // N = 40 x 555,745,280 + 671,088,640 = 22,900,899,840.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{40} * 52'428'800);
  EXPECT_EQ(count->active_params, 22'900'899'840);
  auto shape = model_shape_from_file(fixture("devstral-small-2-24b-instruct"), "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->head_dim, 128);
  EXPECT_EQ(shape->attention_heads, 32);
  // total_params: + embedding 671,088,640 = 23,571,988,480; norms 40 x 2 x 5120 + 5120 = 414,720:
  // 23,572,403,200 text weights, which with the Pixtral vision encoder make the card's "24B".
  EXPECT_EQ(shape->total_params(), 23'571'988'480);
  const std::int64_t text = shape->total_params() + 40 * 2 * 5120 + 5120;
  EXPECT_EQ(text, 23'572'403'200);
  EXPECT_GE(text, 23'000'000'000);
  EXPECT_LT(text, 24'000'000'000);
}

TEST(Ministral3, IsListedAsSupported) {
  std::vector<std::string> types = supported_model_types();
  EXPECT_NE(std::find(types.begin(), types.end(), "ministral3"), types.end());
  EXPECT_NE(std::find(types.begin(), types.end(), "exaone4_5_text"), types.end());
}

}  // namespace
}  // namespace openrecipes
