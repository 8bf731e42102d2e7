// EXAONE 4.0 (model_type exaone4) on LGAI-EXAONE/EXAONE-4.0-1.2B's config.json
// (tests/fixtures/configs/exaone-4.0-1.2b, with its source.yaml); its sliding-window layers on
// edits of it.
#include "params/family_exaone4.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char* kExaone = "tests/fixtures/configs/exaone-4.0-1.2b/config.json";

// The fixture's layer_types block, 30 times "full_attention", as the file writes it.
std::string layer_types_block() {
  std::string block = "\"layer_types\": [\n";
  for (int i = 0; i < 30; ++i)
    block += std::string("    \"full_attention\"") + (i < 29 ? ",\n" : "\n");
  return block + "  ],";
}

// The fixture with its layer_types block replaced by `layer_types` (empty: removed) and the
// window set to `window` (JSON text, e.g. "4096" or "null").
std::string edited(const std::string& layer_types, const std::string& window) {
  std::string text =
      testing::replace_all(testing::read_source_file(kExaone), layer_types_block(), layer_types);
  return testing::replace_all(text, "\"sliding_window\": null,",
                              "\"sliding_window\": " + window + ",");
}

// Three sliding layers then a full one, over `layers` layers (EXAONE 4.0 32B's 3:1 pattern).
std::string local_global_types(int layers) {
  std::string types = "\"layer_types\": [";
  for (int i = 0; i < layers; ++i) {
    types += std::string(i ? ", " : "") +
             ((i + 1) % 4 != 0 ? "\"sliding_attention\"" : "\"full_attention\"");
  }
  return types + "],";
}

std::optional<ModelShape> shape_of(const std::string& text, Problems& problems) {
  auto config = HfConfig::parse(text, "exaone.json", problems);
  if (!config) return std::nullopt;
  return model_shape_from_config(*config, "", problems);
}

TEST(Exaone4, OnePointTwoBCountedByHand) {
  Problems problems;
  auto count = count_active_params_of_file(testing::source_dir() + "/" + kExaone, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  // H 2048, 32 heads of 64, 8 KV heads: q and o 2048 x 2048 = 4,194,304 each, k and v
  // 2048 x 512 = 1,048,576 each: 10,485,760 per layer.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{30} * 10'485'760);
  // gate, up 2048 x 4096 and down 4096 x 2048: 3 x 2048 x 4096 = 25,165,824 per layer.
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{30} * 25'165'824);
  // lm_head 2048 x 102,400 = 209,715,200, counted although tied to the embedding.
  EXPECT_EQ(testing::component_total(*count, "output layer"), 209'715'200);
  // N = 30 x 35,651,584 + 209,715,200 = 1,279,262,720.
  EXPECT_EQ(count->active_params, 1'279'262'720);
}

TEST(Exaone4, OnePointTwoBMatchesThePublishedSize) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kExaone, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_TRUE(shape->tied_embeddings);
  EXPECT_EQ(shape->sliding_window_layers, 0);  // sliding_window null: all global
  // Tied, so the shape's weights are the embedding once and the layers:
  // 209,715,200 + 30 x 35,651,584 = 1,279,262,720.
  EXPECT_EQ(shape->total_params(), 1'279'262'720);
  // The model card gives 1.07B parameters without embeddings: the layers 1,069,547,520 plus
  // the norms (per layer q_norm and k_norm 64 each, post-attention and post-feedforward 2048
  // each: 30 x 4,224 = 126,720; final 2048) = 1,069,676,288, within the rounding of 1.07B.
  std::int64_t without_embedding = shape->total_params() - shape->embedding_params;
  std::int64_t with_norms = without_embedding + 30 * (64 + 64 + 2048 + 2048) + 2048;
  EXPECT_EQ(with_norms, 1'069'676'288);
  EXPECT_GE(with_norms, 1'065'000'000);
  EXPECT_LT(with_norms, 1'075'000'000);
}

TEST(Exaone4, Exaone45TextModelCountsByHandWithItsMtpLayer) {
  // The real LGAI-EXAONE/EXAONE-4.5-33B config (tests/fixtures/configs/exaone-4.5-33b, source.yaml
  // beside it): an exaone4_5 wrapper whose text_config (exaone4_5_text) is EXAONE 4.0's layer.
  // hidden 5120, 40 heads and 8 KV heads of 128, 64 layers:
  //   attention: q 5120x5120 = 26,214,400 + k 5120x1024 = 5,242,880 + v 5,242,880
  //              + o 26,214,400 = 62,914,560 (x 64)
  //   MLP: 3 x 5120 x 27392 = 420,741,120 (x 64); output (untied) 5120 x 153600 = 786,432,000
  // N = 64 x 483,655,680 + 786,432,000 = 31,740,395,520.
  Problems problems;
  const std::string path =
      testing::source_dir() + "/tests/fixtures/configs/exaone-4.5-33b/config.json";
  auto count = count_active_params_of_file(path, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "exaone4_5_text");
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{64} * 62'914'560);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{64} * 420'741'120);
  EXPECT_EQ(count->active_params, 31'740'395'520);
  EXPECT_EQ(count->left_out.back(), "1 multi-token-prediction layer");
  auto shape = model_shape_from_file(path, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->mtp_layers, 1);
  // layer_types (the string sliding_window_pattern "LLLG" is not read beside it): 48 of 64 slide.
  EXPECT_EQ(shape->sliding_window_layers, 48);
  EXPECT_EQ(shape->sliding_window, 4096);
  // total_params: embedding and output 2 x 786,432,000 + 64 x 483,655,680 = 32,526,827,520;
  // norms 64 x (post-attention and post-feedforward 5120 each, q_norm and k_norm 128 each) + final
  // 5120 = 676,864: 32,527,504,384 text weights, which with the 28-layer vision encoder make the
  // "33B" of the model's name.
  EXPECT_EQ(shape->total_params(), 32'526'827'520);
  const std::int64_t text = shape->total_params() + 64 * (5120 + 5120 + 128 + 128) + 5120;
  EXPECT_EQ(text, 32'527'504'384);
  EXPECT_GE(text, 32'000'000'000);
  EXPECT_LT(text, 33'000'000'000);
}

TEST(Exaone4, TheEditsApply) {
  std::string text = testing::read_source_file(kExaone);
  EXPECT_NE(text.find(layer_types_block()), std::string::npos);
  EXPECT_NE(text.find("\"sliding_window\": null,"), std::string::npos);
  EXPECT_NE(text.find("\"sliding_window_pattern\": null"), std::string::npos);
  EXPECT_NE(edited("", "4096"), text);
}

TEST(Exaone4, LayerTypesSetTheSlidingLayers) {
  Problems problems;
  auto shape = shape_of(edited(local_global_types(30), "4096"), problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // 30 layers, every fourth full: 7 full (layers 4, 8, ..., 28), 23 sliding.
  EXPECT_EQ(shape->sliding_window_layers, 23);
  EXPECT_EQ(shape->sliding_window, 4096);
  EXPECT_EQ(shape->attention_layers, 30);
  EXPECT_EQ(shape->active_params, 1'279'262'720);  // the window changes no weight
}

TEST(Exaone4, WithoutLayerTypesTheIntegerPatternDecides) {
  Problems problems;
  // sliding_window_pattern is null in the fixture, so Exaone4Config's default 4 applies.
  auto shape = shape_of(edited("", "4096"), problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->sliding_window_layers, 23);
  std::string three = testing::replace_all(edited("", "4096"), "\"sliding_window_pattern\": null",
                                           "\"sliding_window_pattern\": 3");
  shape = shape_of(three, problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->sliding_window_layers, 20);  // every third full: 10 full, 20 sliding
}

struct BadExaone {
  std::string name, text, field, message;
};

void PrintTo(const BadExaone& c, std::ostream* os) { *os << c.name; }

class BadExaoneTest : public ::testing::TestWithParam<BadExaone> {};

TEST_P(BadExaoneTest, IsAProblemNamingTheField) {
  const BadExaone& c = GetParam();
  Problems problems;
  auto config = HfConfig::parse(c.text, "exaone.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  EXPECT_FALSE(count_active_params(*config, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, "exaone.json");
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_FALSE(problems[0].expected.empty());
  EXPECT_FALSE(problems[0].found.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadExaoneTest,
    ::testing::Values(
        BadExaone{"LayerTypesShorterThanTheModel", edited(local_global_types(29), "4096"),
                  "layer_types", "must list every layer"},
        BadExaone{"UnknownLayerKind",
                  testing::replace_all(edited(local_global_types(30), "4096"),
                                       "[\"sliding_attention\"", "[\"linear_attention\""),
                  "layer_types[0]", "unknown layer kind"},
        BadExaone{"SlidingLayersWithoutAWindow", edited(local_global_types(30), "null"),
                  "sliding_window", "need a window"},
        // The original remote code's "LLLG" string: transformers' Exaone4Config cannot read it
        // either ((i + 1) % "LLLG").
        BadExaone{"StringPattern",
                  testing::replace_all(edited("", "4096"), "\"sliding_window_pattern\": null",
                                       "\"sliding_window_pattern\": \"LLLG\""),
                  "sliding_window_pattern", "wrong type"},
        BadExaone{"KvHeadsNotDividing",
                  testing::replace_all(testing::read_source_file(kExaone),
                                       "\"num_key_value_heads\": 8", "\"num_key_value_heads\": 5"),
                  "num_key_value_heads", "must divide the attention heads"}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace openrecipes
