// OLMo 2 (model_type olmo2). No OLMo 2 config.json was found in the public repositories the
// project searches (see the i17-dense report), so the reader is tested on sibling configs of the
// same matrices: the Llama 3.1 8B fixture, whose N the built-in llama count gives, and the real
// EXAONE 4.0 1.2B config, each with its model_type set to olmo2.
#include "params/family_olmo2.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

std::string as_olmo2(const std::string& path, const std::string& model_type) {
  return testing::replace_all(testing::read_source_file(path),
                              "\"model_type\": \"" + model_type + "\"",
                              "\"model_type\": \"olmo2\"");
}

std::optional<ActiveParamCount> count_of(const std::string& text, Problems& problems) {
  auto config = HfConfig::parse(text, "olmo2.json", problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

TEST(Olmo2, CountsWhatTheLlamaCountCountsForTheSameMatrices) {
  Problems problems;
  auto count = count_of(as_olmo2("tests/fixtures/configs/llama-3.1-8b.json", "llama"), problems);
  ASSERT_TRUE(count) << testing::describe(problems);
  EXPECT_EQ(count->model_type, "olmo2");
  // Olmo2Attention and Olmo2MLP hold Llama's q, k, v, o, gate, up and down (their norms are
  // left out): 32 x (41,943,040 + 176,160,768) + lm_head 525,336,576, as in active_params_test.
  EXPECT_EQ(count->active_params, 7'504'658'432);
  Problems llama_problems;
  auto llama = count_active_params_of_file(
      testing::source_dir() + "/tests/fixtures/configs/llama-3.1-8b.json", llama_problems);
  ASSERT_TRUE(llama) << testing::describe(llama_problems);
  EXPECT_EQ(count->active_params, llama->active_params);
}

TEST(Olmo2, ExplicitHeadDimAndTiedEmbeddings) {
  Problems problems;
  std::string text = as_olmo2("tests/fixtures/configs/exaone-4.0-1.2b/config.json", "exaone4");
  auto config = HfConfig::parse(text, "olmo2.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  // 30 x (attention 10,485,760 + MLP 25,165,824) + lm_head 209,715,200 (see
  // family_exaone4_test.cc); olmo2 reads no layer_types, so no layer slides.
  EXPECT_EQ(shape->active_params, 1'279'262'720);
  EXPECT_EQ(shape->head_dim, 64);
  EXPECT_TRUE(shape->tied_embeddings);
  EXPECT_EQ(shape->sliding_window_layers, 0);
}

TEST(Olmo2, SizesThatDoNotDivideAreProblems) {
  auto refuse = [](const std::string& from, const std::string& to, const std::string& field,
                   const std::string& message) {
    std::string text = as_olmo2("tests/fixtures/configs/llama-3.1-8b.json", "llama");
    std::string bad = testing::replace_all(text, from, to);
    ASSERT_NE(bad, text) << from;
    Problems problems;
    EXPECT_FALSE(count_of(bad, problems));
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    EXPECT_NE(problems[0].message.find(message), std::string::npos) << testing::describe(problems);
    EXPECT_EQ(problems[0].file, "olmo2.json");
  };
  refuse("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 6", "num_key_value_heads",
         "must divide the attention heads");
  // 4096 / 48 is no whole head (and 8 KV heads still divide 48).
  refuse("\"num_attention_heads\": 32", "\"num_attention_heads\": 48", "num_attention_heads",
         "must divide hidden_size");
  refuse("\"intermediate_size\": 14336, ", "", "intermediate_size", "missing required field");
}

}  // namespace
}  // namespace openrecipes
