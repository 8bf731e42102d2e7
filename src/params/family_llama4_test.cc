// Llama 4: the reader's arithmetic and refusals. No Llama 4 config.json was found in a public
// repository the project's search tools hold, so these tests read the Mixtral 8x7B fixture with
// its model_type edited to llama4_text (a sibling MoE config; the sizes are Mixtral's, not
// Scout's or Maverick's) and check how the reader lays out MoE, dense and chunked layers. Scout's
// own count is worked in docs (the family's doc snippet), not asserted here.
#include "params/family_llama4.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char* const kSibling = "tests/fixtures/configs/mixtral-8x7b.json";

std::string as_llama4(const std::string& extra = "") {
  return testing::replace_all(testing::read_source_file(kSibling), "\"model_type\": \"mixtral\",",
                              "\"model_type\": \"llama4_text\"," + extra);
}

std::optional<ActiveParamCount> count_llama4(const std::string& text, Problems& problems) {
  auto config = HfConfig::parse(text, "llama4.json", problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

TEST(Llama4Params, EveryLayerIsMoeByDefault) {
  Problems problems;
  auto count = count_llama4(as_llama4(), problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "llama4_text");
  // hidden 4096, 32 layers, 32 heads and 8 KV heads of 128 (Llama4TextConfig's head_dim default,
  // = 4096 / 32 here), 8 experts of 14336, top-2, vocabulary 32000; interleave_moe_layer_step
  // defaults to 1: all 32 layers are MoE.
  // attention 4096 x (4096 + 1024 + 1024) + 4096 x 4096 = 41,943,040 a layer.
  EXPECT_EQ(testing::component_total(*count, "attention"), std::int64_t{32} * 41'943'040);
  // routed: 2 x 3 x 4096 x 14336 = 352,321,536; shared expert (intermediate_size, ungated):
  // 176,160,768; router 4096 x 8 = 32,768.
  EXPECT_EQ(testing::component_total(*count, "routed experts"), std::int64_t{32} * 352'321'536);
  EXPECT_EQ(testing::component_total(*count, "shared experts"), std::int64_t{32} * 176'160'768);
  EXPECT_EQ(testing::component_total(*count, "router"), std::int64_t{32} * 32'768);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), 0);
  // N = 32 x 570,458,112 + output 32000 x 4096 = 131,072,000 -> 18,385,731,584.
  EXPECT_EQ(count->active_params, 18'385'731'584);
}

TEST(Llama4Params, InterleavedDenseLayersUseTheMlpSize) {
  // Step 2 (Maverick's): layers 1, 3, ..., 31 are MoE (16), the other 16 dense with
  // intermediate_size_mlp (default 16384): 3 x 4096 x 16384 = 201,326,592 each.
  Problems problems;
  auto count = count_llama4(as_llama4(" \"interleave_moe_layer_step\": 2,"), problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(testing::component_total(*count, "routed experts"), std::int64_t{16} * 352'321'536);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{16} * 201'326'592);
  // N = 32 x 41,943,040 + 16 x (352,321,536 + 176,160,768 + 32,768) + 16 x 201,326,592
  //   + 131,072,000 = 1,342,177,280 + 8,456,241,152 + 3,221,225,472 + 131,072,000.
  EXPECT_EQ(count->active_params, 13'150'715'904);
}

TEST(Llama4Params, ShapeHasExpertsAndChunkedLayers) {
  Problems problems;
  auto config =
      HfConfig::parse(as_llama4(" \"interleave_moe_layer_step\": 2,"), "llama4.json", problems);
  ASSERT_TRUE(config);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->moe_layers, 16);
  EXPECT_EQ(shape->dense_mlp_layers, 16);
  EXPECT_EQ(shape->dense_ffn_hidden_size, 16384);
  EXPECT_EQ(shape->experts, 8);
  EXPECT_EQ(shape->experts_per_token, 2);
  EXPECT_EQ(shape->expert_ffn_hidden_size, 14336);
  EXPECT_EQ(shape->shared_expert_ffn_hidden_size, 14336);
  EXPECT_EQ(shape->router_params, 4096 * 8);
  EXPECT_FALSE(shape->tied_embeddings);
  // no_rope_layer_interval 4 (default): layers 3, 7, ..., 31 are global NoPE, the other 24 use
  // chunked attention over attention_chunk_size (default 8192) tokens.
  EXPECT_EQ(shape->sliding_window_layers, 24);
  EXPECT_EQ(shape->sliding_window, 8192);
  // total_params = embedding + output (untied) + 32 x attention + 16 x (8 experts + shared +
  // router) + 16 x dense = 131,072,000 x 2 + 1,342,177,280 + 16 x (8 x 176,160,768 + 176,160,768
  // + 32,768) + 3,221,225,472 = 262,144,000 + 1,342,177,280 + 25,367,674,880 + 3,221,225,472
  // = 30,193,221,632.
  EXPECT_EQ(shape->total_params(), 30'193'221'632);
  EXPECT_EQ(shape->active_params, 13'150'715'904);
}

TEST(Llama4Params, MoeLayersListOverridesTheStep) {
  Problems problems;
  auto count = count_llama4(as_llama4(" \"moe_layers\": [0, 31],"), problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(testing::component_total(*count, "routed experts"), std::int64_t{2} * 352'321'536);
  EXPECT_EQ(testing::component_total(*count, "dense MLP"), std::int64_t{30} * 201'326'592);
}

struct BadLlama4 {
  std::string name;
  std::string extra;  // fields added after model_type
  std::string from, to;
  std::string field, message, expected_part;
};

void PrintTo(const BadLlama4& c, std::ostream* os) { *os << c.name; }

class BadLlama4Test : public ::testing::TestWithParam<BadLlama4> {};

std::string list_of(int count, const std::string& item, const std::string& odd_one) {
  std::string list = "[";
  for (int i = 0; i < count; ++i)
    list += std::string(i ? ", " : "") + (i == 2 && !odd_one.empty() ? odd_one : item);
  return list + "]";
}

TEST_P(BadLlama4Test, IsAClearProblem) {
  const BadLlama4& c = GetParam();
  std::string text = as_llama4(c.extra);
  if (!c.from.empty()) {
    std::string edited = testing::replace_all(text, c.from, c.to);
    ASSERT_NE(edited, text) << "the edit must apply";
    text = edited;
  }
  Problems problems;
  EXPECT_FALSE(count_llama4(text, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, "llama4.json");
  EXPECT_GT(problems[0].position.line, 0);
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_NE(problems[0].expected.find(c.expected_part), std::string::npos)
      << testing::describe(problems);
  EXPECT_FALSE(problems[0].found.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadLlama4Test,
    ::testing::Values(
        BadLlama4{"TopKAboveExperts", "", "\"num_experts_per_tok\": 2",
                  "\"num_experts_per_tok\": 9", "num_experts_per_tok",
                  "more experts per token than experts", "at most 8"},
        BadLlama4{"MoeLayerOutside", " \"moe_layers\": [0, 32],", "", "", "moe_layers",
                  "outside the model", "0 to 31"},
        BadLlama4{"NoRopeTooShort", " \"no_rope_layers\": " + list_of(31, "1", "") + ",", "", "",
                  "no_rope_layers", "must list every layer", "32 entries"},
        BadLlama4{"NoRopeUnknownKind", " \"no_rope_layers\": " + list_of(32, "1", "2") + ",", "",
                  "", "no_rope_layers[2]", "unknown layer kind", "1 (RoPE"},
        BadLlama4{"LayerTypesTooLong",
                  " \"layer_types\": " + list_of(33, "\"full_attention\"", "") + ",", "", "",
                  "layer_types", "must list every layer", "32 entries"},
        BadLlama4{
            "UnknownLayerType",
            " \"layer_types\": " + list_of(32, "\"full_attention\"", "\"linear_attention\"") + ",",
            "", "", "layer_types[2]", "unknown layer kind", "chunked_attention"},
        BadLlama4{"KvHeadsDoNotDivide", "", "\"num_key_value_heads\": 8",
                  "\"num_key_value_heads\": 7", "num_key_value_heads", "must divide",
                  "a divisor of 32"},
        BadLlama4{"ZeroStep", " \"interleave_moe_layer_step\": 0,", "", "",
                  "interleave_moe_layer_step", "too small", "from 1"},
        BadLlama4{"MissingVocab", "", ",\n \"vocab_size\": 32000", "", "vocab_size",
                  "missing required field", "an integer"}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace openrecipes
