// falcon_h1 (Falcon-H1) on the one real config text found: Falcon-H1-Tiny-90M-Instruct's,
// trimmed by the repository it was found in to the fields its loader reads
// (tests/fixtures/configs/falcon-h1-tiny-90m, source.yaml beside it). It lacks
// intermediate_size; the count tests add the value of the model's published config (768, as a
// second public file records it; see source.yaml). Expected values are worked by hand.
#include "params/family_falcon_h1.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char kTiny[] = "tests/fixtures/configs/falcon-h1-tiny-90m/config.json";

// The fixture with the MLP width it lacks.
std::string tiny_text() {
  return testing::replace_all(testing::read_source_file(kTiny), "\"hidden_size\": 512,",
                              "\"hidden_size\": 512,\n    \"intermediate_size\": 768,");
}

std::optional<FamilyModel> read_text(const std::string& text, Problems& problems) {
  std::optional<HfConfig> config = HfConfig::parse(text, "tiny.json", problems);
  if (!config) return std::nullopt;
  return read_falcon_h1(*config, problems);
}

const ParamComponent* find(const ActiveParamCount& count, const std::string& name) {
  for (const ParamComponent& c : count.components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Per layer of Falcon-H1-Tiny-90M (hidden 512), every layer holding all three:
//   attention: q 512 x 512 (8 heads of 64), k and v 512 x 128 (2 KV heads) each, o 512 x 512:
//     262,144 + 2 x 65,536 + 262,144 = 655,360.
//   Mamba-2: d_inner (mamba_d_ssm) 768 = 24 heads x 32; x, B and C channels 768 + 2 x 1 x 64
//     = 896; in_proj 512 x (768 + 896 + 24) = 512 x 1688 = 864,256; conv 896 x 4 = 3,584;
//     out_proj 768 x 512 = 393,216; sum 1,261,056.
//   gated MLP: 3 x 512 x 768 = 1,179,648.
//   output layer (tied, counted once): 32768 x 512 = 16,777,216.
constexpr std::int64_t kAttention = 655'360, kMamba = 1'261'056, kMlp = 1'179'648,
                       kOutput = 16'777'216;

TEST(FalconH1, TheTrimmedConfigNamesWhatItLacks) {
  Problems problems;
  EXPECT_FALSE(count_active_params_of_file(testing::source_dir() + "/" + kTiny, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].field, "intermediate_size") << testing::describe(problems);
  EXPECT_EQ(problems[0].message, "missing required field");
}

TEST(FalconH1, TinyCountsByHand) {
  Problems problems;
  auto model = read_text(tiny_text(), problems);
  ASSERT_TRUE(model) << testing::describe(problems);
  // 24 x (655,360 + 1,261,056 + 1,179,648) + 16,777,216 = 24 x 3,096,064 + 16,777,216
  // = 74,305,536 + 16,777,216 = 91,082,752.
  EXPECT_EQ(model->count.active_params, 91'082'752);
  ASSERT_TRUE(find(model->count, "attention"));
  EXPECT_EQ(find(model->count, "attention")->total, 24 * kAttention);
  ASSERT_TRUE(find(model->count, "mamba"));
  EXPECT_EQ(find(model->count, "mamba")->total, 24 * kMamba);
  ASSERT_TRUE(find(model->count, "dense MLP"));
  EXPECT_EQ(find(model->count, "dense MLP")->total, 24 * kMlp);
  ASSERT_TRUE(find(model->count, "output layer"));
  EXPECT_EQ(find(model->count, "output layer")->total, kOutput);
}

TEST(FalconH1, TinyShapeRebuildsThePublishedSize) {
  Problems problems;
  auto config = HfConfig::parse(tiny_text(), "tiny.json", problems);
  ASSERT_TRUE(config);
  auto shape = model_shape_from_config(*config, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->model_type, "falcon_h1");
  EXPECT_EQ(shape->layers, 24);
  EXPECT_EQ(shape->attention_layers, 24);
  EXPECT_EQ(shape->mamba_layers, 24);
  EXPECT_EQ(shape->dense_mlp_layers, 24);
  EXPECT_EQ(shape->attention_heads, 8);
  EXPECT_EQ(shape->kv_heads, 2);
  EXPECT_EQ(shape->head_dim, 64);
  EXPECT_EQ(shape->mamba_heads, 24);
  EXPECT_EQ(shape->mamba_head_dim, 32);
  EXPECT_EQ(shape->mamba_groups, 1);
  EXPECT_EQ(shape->mamba_state_size, 64);
  EXPECT_EQ(shape->mamba_conv_kernel, 4);
  EXPECT_EQ(shape->mamba_params, kMamba);
  EXPECT_TRUE(shape->gated_mlp);
  EXPECT_EQ(shape->dense_ffn_hidden_size, 768);
  EXPECT_EQ(shape->dense_mlp_params, kMlp);
  EXPECT_FALSE(shape->is_moe());
  EXPECT_TRUE(shape->tied_embeddings);
  // All weights, the tied embedding once: 74,305,536 + 16,777,216 = 91,082,752. Added back:
  // norms (two per layer and the final one, 49 x 512 = 25,088; mamba_rms_norm is false),
  // A_log, D and dt_bias (24 x 3 x 24 = 1,728) and conv1d biases (24 x 896 = 21,504): 48,320,
  // for 91,131,072 — the "90M" of the model's name, rounded to 10M.
  EXPECT_EQ(shape->total_params(), 91'082'752);
  const std::int64_t total = shape->total_params() + 48'320;
  EXPECT_GE(total, 85'000'000);
  EXPECT_LT(total, 95'000'000);
}

TEST(FalconH1, HeadSizeDefaultsToDInnerOverHeads) {
  // Without mamba_d_head, 768 / 24 = 32, as FalconH1Config's "auto" gives: the same count.
  std::string text = testing::replace_all(tiny_text(), "\"mamba_d_head\": 32,", "");
  Problems problems;
  auto model = read_text(text, problems);
  ASSERT_TRUE(model) << testing::describe(problems);
  EXPECT_EQ(model->count.active_params, 91'082'752);
  EXPECT_EQ(model->shape.mamba_head_dim, 32);
}

struct BadTiny {
  std::string name;
  std::string from, to;  // an edit of the Tiny config
  std::string field, message, expected, found;
};

void PrintTo(const BadTiny& c, std::ostream* os) { *os << c.name; }

class BadTinyTest : public ::testing::TestWithParam<BadTiny> {};

TEST_P(BadTinyTest, IsAClearProblem) {
  const BadTiny& c = GetParam();
  std::string text = tiny_text();
  ASSERT_NE(text.find(c.from), std::string::npos) << c.from;
  text = testing::replace_all(text, c.from, c.to);
  Problems problems;
  EXPECT_FALSE(read_text(text, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, "tiny.json");
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_EQ(problems[0].expected, c.expected) << testing::describe(problems);
  EXPECT_EQ(problems[0].found, c.found) << testing::describe(problems);
  EXPECT_GT(problems[0].position.line, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadTinyTest,
    ::testing::Values(
        BadTiny{"HeadsDoNotTileDInner", "\"mamba_d_head\": 32", "\"mamba_d_head\": 30",
                "mamba_d_head", "must tile d_inner", "mamba_n_heads x mamba_d_head = 768",
                "24 x 30 = 720"},
        BadTiny{"DInnerNotAMultipleOfTheHeads", "\"mamba_d_ssm\": 768", "\"mamba_d_ssm\": 770",
                "mamba_d_head", "must tile d_inner", "mamba_n_heads x mamba_d_head = 770",
                "24 x 32 = 768"},
        BadTiny{"GroupsDoNotDivideTheHeads", "\"mamba_n_groups\": 1", "\"mamba_n_groups\": 5",
                "mamba_n_groups", "must divide the Mamba heads", "a divisor of 24 (mamba_n_heads)",
                "5"},
        BadTiny{"KvHeadsDoNotDivide", "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3",
                "num_key_value_heads", "must divide the attention heads", "a divisor of 8", "3"},
        BadTiny{"MissingStateSize", "\"mamba_d_state\": 64,", "", "mamba_d_state",
                "missing required field", "an integer from 1 to 4096", "nothing"},
        BadTiny{"AutoHeadSizeIsNotSaved", "\"mamba_d_head\": 32", "\"mamba_d_head\": \"auto\"",
                "mamba_d_head", "wrong type", "an integer", "string \"auto\""}),
    [](const auto& test) { return test.param.name; });

}  // namespace
}  // namespace openrecipes
