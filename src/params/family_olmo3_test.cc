// OLMo 3 (model_type olmo3). No OLMo 3 config.json was found in the public repositories the
// project searches (see the i17-dense report), so the reader is tested on the Llama 3.1 8B
// fixture with its model_type set to olmo3: the same matrices, and OLMo 3's sliding layers.
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
  refuse(layer_types(32, 4, 1), "layer_types[1]", "unknown layer type");
  refuse(", \"sliding_window\": 0", "sliding_window", "too small");
}

}  // namespace
}  // namespace openrecipes
