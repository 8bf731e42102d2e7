// OLMo 3 (model_type olmo3): N and the shape from the real allenai/Olmo-3.1-32B-Instruct config
// (tests/fixtures/configs/olmo-3.1-32b-instruct, source.yaml beside it), worked by hand; the
// defaults and bad layer lists on the Llama 3.1 8B fixture with its model_type set to olmo3 (the
// same matrices).
#include "params/family_olmo3.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

std::string as_olmo3(const std::string& extra) {
  return testing::replace_all(testing::read_source_file("tests/fixtures/configs/llama-3.1-8b.json"),
                              "\"model_type\": \"llama\"", "\"model_type\": \"olmo3\"" + extra);
}

std::optional<ModelShape> shape_of(const std::string& text, Problems& problems) {
  auto config = HfConfig::parse(text, "olmo3.json", problems);
  if (!config) return std::nullopt;
  return model_shape_from_config(*config, "", problems);
}

// `layers` layer kinds, every `full_every`-th full attention, the others sliding; layer
// `other` (if any) of kind "mamba".
std::string layer_types(int layers, int full_every, int other = -1) {
  std::string types = ", \"layer_types\": [";
  for (int i = 0; i < layers; ++i) {
    std::string kind = (i + 1) % full_every != 0 ? "sliding_attention" : "full_attention";
    types += std::string(i ? ", " : "") + "\"" + (i == other ? "mamba" : kind) + "\"";
  }
  return types + "]";
}

TEST(Olmo3, Olmo31With32bCountsByHandAndRebuildsThePublishedSize) {
  Problems problems;
  const std::string path =
      testing::source_dir() + "/tests/fixtures/configs/olmo-3.1-32b-instruct/config.json";
  auto count = count_active_params_of_file(path, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "olmo3");
  // hidden 5120, 40 heads and 8 KV heads of 128, 64 layers:
  //   attention: q 5120x5120 = 26,214,400 + k 5120x1024 = 5,242,880 + v 5,242,880 + o 26,214,400
  //              = 62,914,560 (x 64)
  //   MLP: 3 x 5120 x 27648 = 424,673,280 (x 64); output (untied) 5120 x 100278 = 513,423,360
  // N = 64 x 487,587,840 + 513,423,360 = 31,719,045,120.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{64} * 62'914'560);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{64} * 424'673'280);
  EXPECT_EQ(count->active_params, 31'719'045'120);
  auto shape = model_shape_from_file(path, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // layer_types: three sliding layers (window 4096) in every four, 48 of 64.
  EXPECT_EQ(shape->attention_layers, 64);
  EXPECT_EQ(shape->sliding_window_layers, 48);
  EXPECT_EQ(shape->sliding_window, 4096);
  // total_params: embedding and output 2 x 513,423,360 + 64 x 487,587,840 = 32,232,468,480.
  // Norms: 64 x (post-attention 5120 + post-feedforward 5120 + q_norm 5120 + k_norm 1024) + final
  // 5120 = 1,053,696: 32,233,522,176, the "32B" of the model's name.
  EXPECT_EQ(shape->total_params(), 32'232'468'480);
  const std::int64_t total = shape->total_params() + 1'053'696;
  EXPECT_EQ(total, 32'233'522'176);
  EXPECT_GE(total, 31'500'000'000);
  EXPECT_LT(total, 32'500'000'000);
}

TEST(Olmo3, DefaultsToThreeSlidingLayersInFour) {
  Problems problems;
  auto shape = shape_of(as_olmo3(""), problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // Olmo3Config without layer_types: (i + 1) % 4 != 0 slides, so 24 of 32 layers, window 4096.
  EXPECT_EQ(shape->sliding_window_layers, 24);
  EXPECT_EQ(shape->sliding_window, 4096);
  EXPECT_EQ(shape->attention_layers, 32);
  // The window changes no weight: Llama 3.1 8B's 32 x 218,103,808 + 525,336,576.
  EXPECT_EQ(shape->active_params, 7'504'658'432);
}

TEST(Olmo3, LayerTypesAndWindowFromTheConfig) {
  Problems problems;
  auto shape = shape_of(as_olmo3(", \"sliding_window\": 2048" + layer_types(32, 2)), problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->sliding_window_layers, 16);  // every other layer full
  EXPECT_EQ(shape->sliding_window, 2048);
}

TEST(Olmo3, BadLayerTypesAreProblems) {
  auto refuse = [](const std::string& extra, const std::string& field, const std::string& message) {
    Problems problems;
    EXPECT_FALSE(shape_of(as_olmo3(extra), problems));
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    EXPECT_NE(problems[0].message.find(message), std::string::npos) << testing::describe(problems);
    EXPECT_FALSE(problems[0].expected.empty());
    EXPECT_FALSE(problems[0].found.empty());
  };
  refuse(layer_types(31, 4), "layer_types", "must list every layer");
  refuse(layer_types(32, 4, 1), "layer_types[1]", "unknown layer kind");
  refuse(", \"sliding_window\": 0", "sliding_window", "too small");
}

}  // namespace
}  // namespace openrecipes
