// Gemma 2 and Gemma 3: N and the planner's shape from the real configs in tests/fixtures/configs
// (google/gemma-2-9b-it, google/gemma-3-27b-it and google/gemma-3-4b-it; see each source.yaml for
// where they were found), worked by hand in the comments, and the refusals of bad edits of them.
#include "params/family_gemma.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char* const kGemma3_27b = "tests/fixtures/configs/gemma-3-27b-it/config.json";
const char* const kGemma3_4b = "tests/fixtures/configs/gemma-3-4b-it/config.json";
const char* const kGemma2_9b = "tests/fixtures/configs/gemma-2-9b-it/config.json";

std::optional<HfConfig> parse_gemma(const std::string& text, Problems& problems) {
  return HfConfig::parse(text, "gemma.json", problems);
}

TEST(GemmaParams, Gemma3_27bCountsTheTextPart) {
  Problems problems;
  auto count = count_active_params_of_file(testing::source_dir() + "/" + kGemma3_27b, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "gemma3_text");
  // hidden 5376, 32 heads and 16 KV heads of 128, ffn 21504, 62 layers, vocabulary 262208 (the
  // Gemma3TextConfig default; the file does not state it).
  // attention: q 5376x4096 + k 5376x2048 + v 5376x2048 + o 4096x5376 = 5376 x 12288
  //          = 66,060,288 a layer; x 62 = 4,095,737,856.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{62} * 66'060'288);
  // GeGLU MLP: 3 x 5376 x 21504 = 346,816,512 a layer; x 62 = 21,502,623,744.
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{62} * 346'816'512);
  // Output layer, tied but multiplied once: 262208 x 5376 = 1,409,630,208.
  EXPECT_EQ(testing::component_total(*count, "output layer"), 1'409'630'208);
  // N = 62 x 412,876,800 + 1,409,630,208 = 27,007,991,808.
  EXPECT_EQ(count->active_params, 27'007'991'808);
  // Gemma 3 has no soft-capping (its config states none); the embedding is left out.
  ASSERT_EQ(count->left_out.size(), 2u);
  EXPECT_EQ(count->left_out[0], "input embedding");
}

TEST(GemmaParams, Gemma3_4bTakesTheClassDefaults) {
  Problems problems;
  auto count = count_active_params_of_file(testing::source_dir() + "/" + kGemma3_4b, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  // The file gives hidden 2560, ffn 10240 and 34 layers; heads 8, KV heads 4, head_dim 256 and
  // vocabulary 262208 are Gemma3TextConfig's defaults.
  // attention: 2560 x (2048 + 1024 + 1024) + 2048 x 2560 = 15,728,640 a layer.
  // MLP: 3 x 2560 x 10240 = 78,643,200 a layer. Output: 262208 x 2560 = 671,252,480.
  // N = 34 x 94,371,840 + 671,252,480 = 3,879,895,040.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{34} * 15'728'640);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{34} * 78'643'200);
  EXPECT_EQ(count->active_params, 3'879'895'040);
}

TEST(GemmaParams, Gemma3ShapeSlidesFiveLayersInSix) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kGemma3_27b, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->layers, 62);
  // Layer i is global when (i + 1) % 6 == 0: layers 5, 11, ..., 59 (10 of them); 52 slide.
  EXPECT_EQ(shape->attention_layers, 62);
  EXPECT_EQ(shape->sliding_window_layers, 52);
  EXPECT_EQ(shape->sliding_window, 1024);
  EXPECT_EQ(shape->attention_heads, 32);
  EXPECT_EQ(shape->kv_heads, 16);
  EXPECT_EQ(shape->head_dim, 128);
  EXPECT_TRUE(shape->tied_embeddings);
  EXPECT_TRUE(shape->gated_mlp);
  EXPECT_EQ(shape->dense_mlp_layers, 62);
  EXPECT_EQ(shape->dense_ffn_hidden_size, 21504);
  EXPECT_FALSE(shape->is_moe());
  EXPECT_EQ(shape->active_params, 27'007'991'808);
}

TEST(GemmaParams, Gemma3TotalsMatchThePublishedTextSizes) {
  // total_params() = embedding (tied: the output layer is not added again) + 62 x (attention +
  // MLP) = 27,007,991,808 here, the same number as N because the embedding and the output layer
  // are one 262208 x 5376 matrix. Norms: 62 x (4 x 5376 + q/k norms 2 x 128) + final 5376
  // = 1,354,496, so 27,009,346,304. keras-hub's gemma3_27b_text preset publishes 27,009,002,240
  // (keras_hub/src/models/gemma3/gemma3_presets.py) with a 262,144-row embedding: its 64 fewer
  // rows are 64 x 5376 = 344,064, and 27,009,346,304 - 344,064 = 27,009,002,240 exactly.
  Problems problems;
  auto big = model_shape_from_file(testing::source_dir() + "/" + kGemma3_27b, "", problems);
  ASSERT_TRUE(big) << testing::describe(problems);
  EXPECT_EQ(big->total_params() + 1'354'496 - 64 * 5376, 27'009'002'240);
  // 4B: 3,879,895,040 + norms 34 x (4 x 2560 + 2 x 256) + 2560 = 368,128, less 64 x 2560
  // = 163,840: 3,880,099,328, keras-hub's gemma3_4b_text figure.
  auto small = model_shape_from_file(testing::source_dir() + "/" + kGemma3_4b, "", problems);
  ASSERT_TRUE(small) << testing::describe(problems);
  EXPECT_EQ(small->sliding_window_layers, 29);  // 34 layers, global at 5, 11, 17, 23, 29
  EXPECT_EQ(small->total_params() + 368'128 - 64 * 2560, 3'880'099'328);
}

TEST(GemmaParams, Gemma2_9bAlternatesOneToOne) {
  Problems problems;
  auto count = count_active_params_of_file(testing::source_dir() + "/" + kGemma2_9b, problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  // hidden 3584, 16 heads and 8 KV heads of 256, ffn 14336, 42 layers, vocabulary 256000.
  // attention: 3584 x (4096 + 2048 + 2048) + 4096 x 3584 = 3584 x 12288 = 44,040,192 a layer.
  // MLP: 3 x 3584 x 14336 = 154,140,672. Output (tied): 256000 x 3584 = 917,504,000.
  // N = 42 x 198,180,864 + 917,504,000 = 9,241,100,288.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{42} * 44'040'192);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{42} * 154'140'672);
  EXPECT_EQ(count->active_params, 9'241'100'288);
  ASSERT_EQ(count->left_out.size(), 3u);
  EXPECT_EQ(count->left_out[2], "attention and final-logit soft-capping (scalars)");
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kGemma2_9b, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // modeling_gemma2.py: even layers slide, so 21 of 42, with a 4096-token window.
  EXPECT_EQ(shape->sliding_window_layers, 21);
  EXPECT_EQ(shape->sliding_window, 4096);
  EXPECT_TRUE(shape->tied_embeddings);
  // total_params = embedding + 42 x 198,180,864 = 9,241,100,288; norms 42 x 4 x 3584 + 3584
  // = 605,696 -> 9,241,705,984, exactly the checkpoint's size: the same mirror's
  // model.safetensors.index.json gives total_size 18,483,411,968 bytes = 9,241,705,984 bf16
  // parameters (the model card's "9B").
  EXPECT_EQ(shape->total_params() + 605'696, 9'241'705'984);
}

TEST(GemmaParams, LayerTypesOverrideThePattern) {
  // 62 layer_types, the first 2 global and the rest sliding: 60 slide.
  std::string types = "\"layer_types\": [";
  for (int i = 0; i < 62; ++i)
    types += std::string(i ? ", " : "") + (i < 2 ? "\"full_attention\"" : "\"sliding_attention\"");
  std::string text =
      testing::replace_all(testing::read_source_file(kGemma3_27b), "\"sliding_window\": 1024",
                           types + "], \"sliding_window\": 1024");
  Problems problems;
  auto config = parse_gemma(text, problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->sliding_window_layers, 60);
}

struct BadGemma {
  std::string name;
  std::string from, to;  // an edit of the Gemma 3 27B config
  std::string field, message, expected_part;
};

void PrintTo(const BadGemma& c, std::ostream* os) { *os << c.name; }

class BadGemmaTest : public ::testing::TestWithParam<BadGemma> {};

std::string layer_types(int count, const std::string& odd_one) {
  std::string types = "\"layer_types\": [";
  for (int i = 0; i < count; ++i)
    types += std::string(i ? ", " : "") +
             (i == 3 && !odd_one.empty() ? odd_one : "\"sliding_attention\"");
  return types + "], ";
}

TEST_P(BadGemmaTest, IsAClearProblem) {
  const BadGemma& c = GetParam();
  std::string text = testing::replace_all(testing::read_source_file(kGemma3_27b), c.from, c.to);
  ASSERT_NE(text, testing::read_source_file(kGemma3_27b)) << "the edit must apply";
  Problems problems;
  auto config = parse_gemma(text, problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  EXPECT_FALSE(count_active_params(*config, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, "gemma.json");
  EXPECT_GT(problems[0].position.line, 0);
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_NE(problems[0].expected.find(c.expected_part), std::string::npos)
      << testing::describe(problems);
  EXPECT_FALSE(problems[0].found.empty());
  Problems shape_problems;
  EXPECT_FALSE(model_shape_from_config(*config, "", shape_problems));
  EXPECT_FALSE(shape_problems.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadGemmaTest,
    ::testing::Values(
        BadGemma{"LayerTypesTooShort", "\"sliding_window\": 1024",
                 layer_types(61, "") + "\"sliding_window\": 1024", "text_config.layer_types",
                 "must list every layer", "62 entries"},
        BadGemma{"UnknownLayerType", "\"sliding_window\": 1024",
                 layer_types(62, "\"chunked_attention\"") + "\"sliding_window\": 1024",
                 "text_config.layer_types[3]", "unknown layer kind",
                 "sliding_attention or full_attention"},
        BadGemma{"KvHeadsDoNotDivide", "\"num_key_value_heads\": 16", "\"num_key_value_heads\": 12",
                 "text_config.num_key_value_heads", "must divide", "a divisor of 32"},
        BadGemma{"ZeroPattern", "\"sliding_window\": 1024",
                 "\"sliding_window_pattern\": 0, \"sliding_window\": 1024",
                 "text_config.sliding_window_pattern", "too small", "from 1"},
        BadGemma{"MissingHidden", "\"hidden_size\": 5376,", "", "text_config.hidden_size",
                 "missing required field", "an integer"},
        BadGemma{"StringHeads", "\"num_attention_heads\": 32", "\"num_attention_heads\": \"32\"",
                 "text_config.num_attention_heads", "wrong type", "an integer"}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace openrecipes
