// nemotron_h (Nemotron-H, Nemotron 3) on the real Nemotron 3 Nano 30B-A3B config
// (tests/fixtures/configs/nemotron-3-nano-30b-a3b, source.yaml beside it). Expected values are
// worked by hand in the comments from that config; edits of its text make the bad configs.
#include "params/family_nemotron_h.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "params/active_params.h"
#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

const char kNano[] = "tests/fixtures/configs/nemotron-3-nano-30b-a3b/config.json";
const char kPattern[] = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";

std::string nano_text() { return testing::read_source_file(kNano); }

std::optional<FamilyModel> read_text(const std::string& text, Problems& problems) {
  std::optional<HfConfig> config = HfConfig::parse(text, "nano.json", problems);
  if (!config) return std::nullopt;
  return read_nemotron_h(*config, problems);
}

const ParamComponent* find(const ActiveParamCount& count, const std::string& name) {
  for (const ParamComponent& c : count.components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Per layer of Nemotron 3 Nano (hidden 2688):
//   Mamba-2: d_inner 64 heads x 64 = 4096; x, B and C channels 4096 + 2 x 8 groups x 128 = 6144;
//     in_proj 2688 x (4096 + 6144 + 64) = 2688 x 10304 = 27,697,152; conv 6144 x 4 = 24,576;
//     out_proj 4096 x 2688 = 11,010,048; sum 38,731,776.
//   attention: q 2688 x 4096 = 11,010,048, k and v 2688 x 256 = 688,128 each, o 11,010,048;
//     sum 23,396,352.
//   one routed expert: up 2688 x 1856 + down 1856 x 2688 = 9,977,856; top-6: 59,867,136.
//   shared expert: 2 x 2688 x 3712 = 19,955,712. router: 2688 x 128 = 344,064.
//   output layer: 131072 x 2688 = 352,321,536.
constexpr std::int64_t kMamba = 38'731'776, kAttention = 23'396'352, kExpert = 9'977'856,
                       kShared = 19'955'712, kRouter = 344'064, kOutput = 352'321'536;

TEST(NemotronH, NanoCountsByHand) {
  Problems problems;
  auto result = count_active_params_of_file(testing::source_dir() + "/" + kNano, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->model_type, "nemotron_h");
  // 23 M, 6 *, 23 E in the 52-character pattern:
  // 23 x 38,731,776 + 6 x 23,396,352 + 23 x (59,867,136 + 19,955,712 + 344,064) + 352,321,536
  // = 890,830,848 + 140,378,112 + 1,843,838,976 + 352,321,536 = 3,227,369,472.
  EXPECT_EQ(result->active_params, 3'227'369'472);
  const ParamComponent* mamba = find(*result, "mamba");
  ASSERT_TRUE(mamba);
  EXPECT_EQ(mamba->layers, 23);
  EXPECT_EQ(mamba->per_layer, kMamba);
  ASSERT_TRUE(find(*result, "attention"));
  EXPECT_EQ(find(*result, "attention")->layers, 6);
  EXPECT_EQ(find(*result, "attention")->per_layer, kAttention);
  ASSERT_TRUE(find(*result, "routed experts"));
  EXPECT_EQ(find(*result, "routed experts")->total, 23 * 6 * kExpert);
  ASSERT_TRUE(find(*result, "shared experts"));
  EXPECT_EQ(find(*result, "shared experts")->total, 23 * kShared);
  ASSERT_TRUE(find(*result, "router"));
  EXPECT_EQ(find(*result, "router")->total, 23 * kRouter);
  ASSERT_TRUE(find(*result, "output layer"));
  EXPECT_EQ(find(*result, "output layer")->total, kOutput);
  EXPECT_FALSE(find(*result, "dense MLP"));  // no '-' in the pattern
  EXPECT_NE(std::find(result->left_out.begin(), result->left_out.end(), "A_log, D and dt_bias"),
            result->left_out.end());
  std::int64_t sum = 0;
  for (const ParamComponent& p : result->components) sum += p.total;
  EXPECT_EQ(sum, result->active_params);
}

TEST(NemotronH, NanoShapeRebuildsThePublishedTotal) {
  Problems problems;
  auto shape = model_shape_from_file(testing::source_dir() + "/" + kNano, "", problems);
  ASSERT_TRUE(shape) << testing::describe(problems);
  EXPECT_EQ(shape->layers, 52);
  EXPECT_EQ(shape->mamba_layers, 23);
  EXPECT_EQ(shape->mamba_heads, 64);
  EXPECT_EQ(shape->mamba_head_dim, 64);
  EXPECT_EQ(shape->mamba_groups, 8);
  EXPECT_EQ(shape->mamba_state_size, 128);
  EXPECT_EQ(shape->mamba_conv_kernel, 4);
  EXPECT_EQ(shape->mamba_params, kMamba);
  EXPECT_EQ(shape->attention_layers, 6);
  EXPECT_EQ(shape->attention_heads, 32);
  EXPECT_EQ(shape->kv_heads, 2);
  EXPECT_EQ(shape->head_dim, 128);
  EXPECT_FALSE(shape->gated_mlp);
  EXPECT_EQ(shape->dense_mlp_layers, 0);
  EXPECT_EQ(shape->moe_layers, 23);
  EXPECT_EQ(shape->experts, 128);
  EXPECT_EQ(shape->experts_per_token, 6);
  EXPECT_EQ(shape->expert_ffn_hidden_size, 1856);
  EXPECT_EQ(shape->shared_expert_ffn_hidden_size, 3712);
  EXPECT_EQ(shape->expert_params, kExpert);
  EXPECT_EQ(shape->shared_expert_params, kShared);
  EXPECT_EQ(shape->router_params, kRouter);
  EXPECT_FALSE(shape->tied_embeddings);
  EXPECT_EQ(shape->mtp_layers, 0);
  EXPECT_EQ(shape->active_params, 3'227'369'472);
  // All weights: embedding and output 2 x 352,321,536 + 23 x 38,731,776 + 6 x 23,396,352
  // + 23 x (128 x 9,977,856 + 19,955,712 + 344,064) = 704,643,072 + 890,830,848 + 140,378,112
  // + 29,841,702,912 = 31,577,554,944.
  EXPECT_EQ(shape->total_params(), 31'577'554'944);
  // Added back: norms (52 pre-norms and the final norm of 2688, 23 gated Mamba norms of 4096:
  // 139,776 + 2,688 + 94,208), A_log, D and dt_bias (23 x 3 x 64 = 4,416), conv1d biases
  // (23 x 6144 = 141,312) and the router's score-correction biases (23 x 128 = 2,944):
  // 385,344, for 31,577,940,288. The Hugging Face Hub's count for
  // nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 is 31.6B (rounded to 0.1B).
  const std::int64_t total = shape->total_params() + 385'344;
  EXPECT_EQ(total, 31'577'940'288);
  EXPECT_GE(total, 31'550'000'000);
  EXPECT_LT(total, 31'650'000'000);
  // The card's "3.6B including embeddings": N + 352,321,536 = 3,579,691,008.
  EXPECT_GE(shape->active_params + shape->embedding_params, 3'550'000'000);
  EXPECT_LT(shape->active_params + shape->embedding_params, 3'650'000'000);
}

TEST(NemotronH, LayersBlockTypeReadsLikeThePattern) {
  // transformers' newer form: a list, in its legacy names (configuration_nemotron_h.py).
  std::string list = "\"layers_block_type\": [";
  for (std::size_t i = 0; i < sizeof(kPattern) - 1; ++i) {
    char ch = kPattern[i];
    list += std::string(i ? ", " : "") + (ch == 'M'   ? "\"mamba\""
                                          : ch == 'E' ? "\"moe\""
                                                      : "\"attention\"");
  }
  list += "]";
  std::string text = testing::replace_all(
      nano_text(), std::string("\"hybrid_override_pattern\": \"") + kPattern + "\"", list);
  Problems problems;
  auto model = read_text(text, problems);
  ASSERT_TRUE(model) << testing::describe(problems);
  EXPECT_EQ(model->count.active_params, 3'227'369'472);
}

TEST(NemotronH, MlpLayersAreUngatedAndMtpIsLeftOut) {
  // Two MoE layers made MLP layers ("-", intermediate_size 1856: up + down 2 x 2688 x 1856
  // = 9,977,856 each) and one MTP layer added.
  std::string pattern = kPattern;
  pattern[1] = '-';
  pattern[3] = '-';
  std::string text = testing::replace_all(nano_text(), kPattern, pattern);
  text = testing::replace_all(text, "\"vocab_size\": 131072",
                              "\"vocab_size\": 131072, \"num_nextn_predict_layers\": 1");
  Problems problems;
  auto model = read_text(text, problems);
  ASSERT_TRUE(model) << testing::describe(problems);
  const ParamComponent* mlp = find(model->count, "dense MLP");
  ASSERT_TRUE(mlp);
  EXPECT_EQ(mlp->layers, 2);
  EXPECT_EQ(mlp->per_layer, 9'977'856);
  // 3,227,369,472 - 2 x 80,166,912 (one MoE layer's routed, shared and router) + 2 x 9,977,856.
  EXPECT_EQ(model->count.active_params, 3'227'369'472 - 2 * 80'166'912 + 2 * 9'977'856);
  EXPECT_EQ(model->shape.mtp_layers, 1);
  EXPECT_EQ(model->shape.dense_ffn_hidden_size, 1856);
  EXPECT_NE(std::find(model->count.left_out.begin(), model->count.left_out.end(),
                      "1 multi-token-prediction layer"),
            model->count.left_out.end());
}

TEST(NemotronH, LatentExpertsWorkInTheLatentWidth) {
  // moe_latent_size 1024 (as Nemotron 3 Super's configs name it): each expert is up 1024 x 1856
  // + down 1856 x 1024 = 3,801,088 (top-6: 22,806,528), and fc1 2688 x 1024 + fc2 1024 x 2688
  // = 5,505,024 join the shared expert's 19,955,712 (25,460,736).
  std::string text = testing::replace_all(nano_text(), "\"vocab_size\": 131072",
                                          "\"vocab_size\": 131072, \"moe_latent_size\": 1024");
  Problems problems;
  auto model = read_text(text, problems);
  ASSERT_TRUE(model) << testing::describe(problems);
  ASSERT_TRUE(find(model->count, "routed experts"));
  EXPECT_EQ(find(model->count, "routed experts")->per_layer, 22'806'528);
  ASSERT_TRUE(find(model->count, "shared experts"));
  EXPECT_EQ(find(model->count, "shared experts")->per_layer, 25'460'736);
  EXPECT_EQ(model->shape.expert_params, 3'801'088);
  EXPECT_EQ(model->shape.shared_expert_params, 25'460'736);
}

struct BadNano {
  std::string name;
  std::string from, to;  // an edit of the Nano config
  std::string field, message, expected, found;
};

void PrintTo(const BadNano& c, std::ostream* os) { *os << c.name; }

class BadNanoTest : public ::testing::TestWithParam<BadNano> {};

TEST_P(BadNanoTest, IsAClearProblem) {
  const BadNano& c = GetParam();
  std::string text = nano_text();
  ASSERT_NE(text.find(c.from), std::string::npos) << c.from;
  text = testing::replace_all(text, c.from, c.to);
  Problems problems;
  EXPECT_FALSE(read_text(text, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].file, "nano.json");
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_EQ(problems[0].expected, c.expected) << testing::describe(problems);
  EXPECT_EQ(problems[0].found, c.found) << testing::describe(problems);
  EXPECT_GT(problems[0].position.line, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadNanoTest,
    ::testing::Values(
        BadNano{"PatternShorterThanTheLayers", "EMEMEMEME\"", "EMEMEMEM\"",
                "hybrid_override_pattern", "one kind per layer", "52 layers (num_hidden_layers)",
                "51 layers"},
        BadNano{"UnknownLayerKind", "\"MEMEM*", "\"XEMEM*", "hybrid_override_pattern",
                "unknown layer kind", "M (Mamba-2), * (attention), - (MLP) or E (MoE)",
                "'X' at layer 0"},
        BadNano{"PatternNotAString", std::string("\"") + kPattern + "\"", "52",
                "hybrid_override_pattern", "wrong type", "a string", "integer 52"},
        BadNano{"GroupsDoNotDivideTheHeads", "\"n_groups\": 8", "\"n_groups\": 6", "n_groups",
                "must divide the Mamba heads", "a divisor of 64 (mamba_num_heads)", "6"},
        BadNano{"TopKAboveTheExperts", "\"num_experts_per_tok\": 6", "\"num_experts_per_tok\": 129",
                "num_experts_per_tok", "more experts per token than experts",
                "at most 128 (n_routed_experts)", "129"},
        BadNano{"KvHeadsDoNotDivide", "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3",
                "num_key_value_heads", "must divide the attention heads", "a divisor of 32", "3"},
        BadNano{"MissingMambaHeads", "\"mamba_num_heads\": 64,", "", "mamba_num_heads",
                "missing required field", "an integer from 1 to 4096", "nothing"},
        BadNano{"ZeroStateSize", "\"ssm_state_size\": 128", "\"ssm_state_size\": 0",
                "ssm_state_size", "too small", "an integer from 1 to 4096", "0"}),
    [](const auto& test) { return test.param.name; });

TEST(NemotronH, UnknownBlockTypeInTheList) {
  std::string text = testing::replace_all(
      nano_text(), std::string("\"hybrid_override_pattern\": \"") + kPattern + "\"",
      "\"layers_block_type\": [\"mamba\", \"rwkv\"]");
  Problems problems;
  EXPECT_FALSE(read_text(text, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].field, "layers_block_type") << testing::describe(problems);
  EXPECT_EQ(problems[0].found, "\"rwkv\" at layer 1");
  EXPECT_GT(problems[0].position.line, 0);
}

// A config with both forms: they must name the same kind for every layer.
TEST(NemotronH, APatternAndAListMustAgree) {
  std::string pattern = std::string("\"hybrid_override_pattern\": \"") + kPattern + "\"";
  auto with_list = [&](const std::string& first_kind) {
    std::string list = "\"layers_block_type\": [";
    for (std::size_t i = 0; i < sizeof(kPattern) - 1; ++i) {
      char ch = kPattern[i];
      std::string kind = ch == 'M' ? "mamba" : ch == 'E' ? "moe" : "attention";
      list += std::string(i ? ", " : "") + "\"" + (i == 0 ? first_kind : kind) + "\"";
    }
    return testing::replace_all(nano_text(), pattern, pattern + ",\n  " + list + "]");
  };
  Problems agree;
  EXPECT_TRUE(read_text(with_list("mamba"), agree)) << testing::describe(agree);
  Problems disagree;
  EXPECT_FALSE(read_text(with_list("moe"), disagree));
  ASSERT_EQ(disagree.size(), 1u) << testing::describe(disagree);
  EXPECT_EQ(disagree[0].field, "layers_block_type");
  EXPECT_EQ(disagree[0].message, "disagrees with hybrid_override_pattern");
  EXPECT_EQ(disagree[0].found, "52 layers, the first difference at layer 0");
}

TEST(NemotronH, NoPatternAtAll) {
  std::string text = testing::replace_all(
      nano_text(), std::string("\"hybrid_override_pattern\": \"") + kPattern + "\",", "");
  Problems problems;
  EXPECT_FALSE(read_text(text, problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].field, "hybrid_override_pattern") << testing::describe(problems);
  EXPECT_EQ(problems[0].message, "missing required field");
}

}  // namespace
}  // namespace openrecipes
