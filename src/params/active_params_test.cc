// N for real architectures. Expected values are worked by hand from each model's public config
// (the arithmetic is in the comments) and, where the model's total parameter count is published,
// cross-checked by adding the embedding, norms and biases back.
#include "params/active_params.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "params/model_shape.h"
#include "test_support.h"

namespace openrecipes {
namespace {

std::optional<ActiveParamCount> count(const std::string& path, Problems& problems) {
  return count_active_params_of_file(testing::source_dir() + "/" + path, problems);
}

struct KnownCount {
  std::string config;
  std::int64_t active_params;
};

void PrintTo(const KnownCount& c, std::ostream* os) { *os << c.config; }

class KnownCountTest : public ::testing::TestWithParam<KnownCount> {};

TEST_P(KnownCountTest, MatchesTheHandCount) {
  Problems problems;
  auto result = count(GetParam().config, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(result->active_params, GetParam().active_params);
  std::int64_t sum = 0;
  for (const ParamComponent& p : result->components) {
    EXPECT_EQ(p.total, p.layers * p.per_layer) << p.name;
    sum += p.total;
  }
  EXPECT_EQ(sum, result->active_params);
}

INSTANTIATE_TEST_SUITE_P(
    Models, KnownCountTest,
    ::testing::Values(
        // The catalog's two models: the seed recipes' N.
        KnownCount{"models/gpt-oss-20b/config.json", 3'607'142'400},
        KnownCount{"models/qwen3.5-122b-a10b/config.json", 9'008'136'192},
        // Llama 3.1 8B: 32 x (attention 41,943,040 + MLP 176,160,768) + output 525,336,576.
        // + embedding 525,336,576 + norms 266,240 = 8,030,261,248, the published total.
        KnownCount{"tests/fixtures/configs/llama-3.1-8b.json", 7'504'658'432},
        // Mistral 7B: 32 x 218,103,808 + output 131,072,000; + embedding and norms = 7,241,732,096.
        KnownCount{"tests/fixtures/configs/mistral-7b-v0.1.json", 7'110'393'856},
        // Qwen2 7B: 28 x (29,360,128 + 203,685,888) + 544,997,376; + embedding, q/k/v biases
        // (129,024) and norms (204,288) = 7,615,616,512, the published total.
        KnownCount{"tests/fixtures/configs/qwen2-7b.json", 7'070'285'824},
        // Qwen3 8B: 36 x (41,943,040 + 150,994,944) + 622,329,856; + embedding and norms (with
        // q/k norms, 308,224) = 8,190,735,360, the published total.
        KnownCount{"tests/fixtures/configs/qwen3-8b.json", 7'568'097'280},
        // Mixtral 8x7B: 32 x (41,943,040 + 2 x 176,160,768 + router 32,768) + 131,072,000.
        KnownCount{"tests/fixtures/configs/mixtral-8x7b.json", 12'748'587'008},
        // Qwen2-57B-A14B: 28 x (29,360,128 + 8 x 27,525,120 + shared 220,200,960 + gate 3,584
        // + router 229,376) + 544,538,624.
        KnownCount{"tests/fixtures/configs/qwen2-57b-a14b.json", 13'704'398'848},
        // Qwen3-30B-A3B: 48 x (18,874,368 + 8 x 4,718,592 + router 262,144) + 311,164,928.
        KnownCount{"tests/fixtures/configs/qwen3-30b-a3b.json", 3'041'656'832},
        // DeepSeek-V3: 61 x MLA 187,105,280 + 3 dense x 396,361,728 + 58 x (8 x 44,040,192
        // + shared 44,040,192 + router 1,835,008) + 926,679,040; the MTP layer is left out.
        KnownCount{"tests/fixtures/configs/deepseek-v3.json", 36'624'596'992},
        // DeepSeek-V2-Lite, no q-LoRA: 27 x MLA 13,762,560 + 1 dense x 67,239,936
        // + 26 x (6 x 8,650,752 + shared 17,301,504 + router 131,072) + 209,715,200.
        KnownCount{"tests/fixtures/configs/deepseek-v2-lite.json", 2'451'308'544},
        // Qwen3-Next-80B-A3B: 12 x gated attention 27,262,976 + 36 x Gated DeltaNet 33,718,272
        // + 48 x (10 x 3,145,728 + shared 3,145,728 + gate 2,048 + router 1,048,576) + 311,164,928.
        KnownCount{"tests/fixtures/configs/qwen3-next-80b-a3b.json", 3'563'552'768}),
    [](const auto& test) {
      std::string name = test.param.config;
      name = name.substr(0, name.rfind('.'));
      if (name.ends_with("/config")) name.resize(name.size() - 7);
      name = name.substr(name.rfind('/') + 1);
      for (char& ch : name) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

TEST(ActiveParams, Qwen35BreakdownFollowsTheIssue) {
  Problems problems;
  auto result = count("models/qwen3.5-122b-a10b/config.json", problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(testing::component_total(*result, "attention"),
            std::int64_t{12} * 78'643'200);  // 1 layer in 4
  EXPECT_EQ(testing::component_total(*result, "linear attention"), std::int64_t{36} * 88'522'752);
  EXPECT_EQ(testing::component_total(*result, "routed experts"), std::int64_t{48} * 75'497'472);
  EXPECT_EQ(testing::component_total(*result, "shared experts"),
            std::int64_t{48} * (9'437'184 + 3'072));  // with its gate
  EXPECT_EQ(testing::component_total(*result, "router"), std::int64_t{48} * 786'432);
  EXPECT_EQ(testing::component_total(*result, "output layer"), 762'839'040);
}

TEST(ActiveParams, LayerTypesOverrideTheInterval) {
  std::string text = testing::read_source_file("tests/fixtures/configs/qwen3-next-80b-a3b.json");
  std::string types = "\"layer_types\": [";
  for (int i = 0; i < 48; ++i)
    types += std::string(i ? ", " : "") + (i < 24 ? "\"full_attention\"" : "\"linear_attention\"");
  text = testing::replace_all(text, "\"full_attention_interval\": 4,", types + "],");
  Problems problems;
  auto config = HfConfig::parse(text, "next.json", problems);
  ASSERT_TRUE(config);
  auto result = count_active_params(*config, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(testing::component_total(*result, "attention"), std::int64_t{24} * 27'262'976);
  EXPECT_EQ(testing::component_total(*result, "linear attention"), std::int64_t{24} * 33'718'272);
}

TEST(ActiveParams, MlpOnlyLayersAreDense) {
  std::string text =
      testing::replace_all(testing::read_source_file("tests/fixtures/configs/qwen3-30b-a3b.json"),
                           "\"mlp_only_layers\": []", "\"mlp_only_layers\": [0, 47]");
  Problems problems;
  auto config = HfConfig::parse(text, "moe.json", problems);
  auto result = count_active_params(*config, problems);
  ASSERT_TRUE(result) << testing::describe(problems);
  EXPECT_EQ(testing::component_total(*result, "dense MLP"), 2 * 3 * 2048 * 6144);
  EXPECT_EQ(testing::component_total(*result, "router"), 46 * 2048 * 128);
}

struct BadConfig {
  std::string name;
  std::string from, to;  // an edit of the Llama config
  std::string field, message;
};

void PrintTo(const BadConfig& c, std::ostream* os) { *os << c.name; }

class BadConfigTest : public ::testing::TestWithParam<BadConfig> {};

TEST_P(BadConfigTest, IsAClearProblem) {
  const BadConfig& c = GetParam();
  std::string text = testing::replace_all(
      testing::read_source_file("tests/fixtures/configs/llama-3.1-8b.json"), c.from, c.to);
  Problems problems;
  auto config = HfConfig::parse(text, "llama.json", problems);
  std::optional<ActiveParamCount> result;
  if (config) result = count_active_params(*config, problems);
  EXPECT_FALSE(result);
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].field, c.field) << testing::describe(problems);
  EXPECT_NE(problems[0].message.find(c.message), std::string::npos) << testing::describe(problems);
  EXPECT_GT(problems[0].position.line, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, BadConfigTest,
    ::testing::Values(
        BadConfig{"MissingField", "\"hidden_size\": 4096, ", "", "hidden_size",
                  "missing required field"},
        BadConfig{"StringSize", "\"hidden_size\": 4096", "\"hidden_size\": \"4096\"", "hidden_size",
                  "wrong type"},
        BadConfig{"FloatSize", "\"hidden_size\": 4096", "\"hidden_size\": 4096.5", "hidden_size",
                  "wrong type"},
        BadConfig{"ZeroLayers", "\"num_hidden_layers\": 32", "\"num_hidden_layers\": 0",
                  "num_hidden_layers", "too small"},
        BadConfig{"NegativeHeads", "\"num_attention_heads\": 32", "\"num_attention_heads\": -32",
                  "num_attention_heads", "too small"},
        BadConfig{"BillionLayers", "\"num_hidden_layers\": 32", "\"num_hidden_layers\": 1000000000",
                  "num_hidden_layers", "too large"},
        BadConfig{"HugeVocab", "\"vocab_size\": 128256", "\"vocab_size\": 1000000000000",
                  "vocab_size", "too large"},
        BadConfig{"UnknownType", "\"llama\"", "\"rwkv\"", "model_type", "unsupported model_type"},
        BadConfig{"NotJson", "{", "[", "", "not valid JSON"},
        BadConfig{"DuplicateKey", "\"vocab_size\": 128256",
                  "\"vocab_size\": 128256, \"vocab_size\": 2", "vocab_size", "duplicate key"}),
    [](const auto& test) { return test.param.name; });

TEST(ActiveParams, InconsistentSizesAreRefused) {
  // Each is named at its field's line (at the list entry for an entry): the line of the first
  // occurrence of `to` in the edited text.
  auto refuse = [](const std::string& path, const std::string& from, const std::string& to,
                   const std::string& field) {
    std::string text = testing::replace_all(testing::read_source_file(path), from, to);
    Problems problems;
    auto config = HfConfig::parse(text, "c.json", problems);
    ASSERT_TRUE(config) << testing::describe(problems);
    EXPECT_FALSE(count_active_params(*config, problems)) << from;
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].field, field) << testing::describe(problems);
    const std::string before = text.substr(0, text.find(to));
    const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    EXPECT_EQ(problems[0].position.line, line) << testing::describe(problems);
  };
  refuse("models/gpt-oss-20b/config.json", "\"num_experts_per_tok\": 4",
         "\"num_experts_per_tok\": 64", "num_experts_per_tok");
  refuse("models/gpt-oss-20b/config.json", "\"num_key_value_heads\": 8",
         "\"num_key_value_heads\": 7", "num_key_value_heads");
  refuse("models/gpt-oss-20b/config.json",
         "\"sliding_attention\", \"full_attention\", \"sliding_attention\"",
         "\"banana\", \"full_attention\", \"sliding_attention\"", "layer_types[0]");
  refuse("tests/fixtures/configs/deepseek-v3.json", "\"first_k_dense_replace\": 3",
         "\"first_k_dense_replace\": 100", "first_k_dense_replace");
  refuse("tests/fixtures/configs/qwen3-30b-a3b.json", "\"mlp_only_layers\": []",
         "\"mlp_only_layers\": [1000]", "mlp_only_layers");
}

// A refused layer count is the one problem: the list of layer types is not measured against it
// (it was, against the fallback of 1: "expected 1 entries, found 24").
TEST(ActiveParams, ARefusedLayerCountIsNotComparedWithTheLayerTypes) {
  std::string text =
      testing::replace_all(testing::read_source_file("models/gpt-oss-20b/config.json"),
                           "\"num_hidden_layers\": 24", "\"num_hidden_layers\": 0");
  Problems problems;
  auto config = HfConfig::parse(text, "c.json", problems);
  ASSERT_TRUE(config);
  EXPECT_FALSE(count_active_params(*config, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "num_hidden_layers");
}

// A vision-language model's config nests its language model in text_config (or llm_config).
// Qwen2.5-VL's, Qwen3-VL's (dense and MoE) and GLM-4.5V's are their text siblings' decoders, and
// Nemotron Nano VL's is Nemotron-H itself, so each sibling's real file, wrapped as those configs
// nest it (its text part under the VL text type beside a vision_config, tie_word_embeddings at
// the top level), counts the same N and gives the planner the same shape. No real VL config.json
// was reachable from this project's search tools (docs/active-params.md).
TEST(ActiveParams, AVisionLanguageConfigCountsItsLanguageModel) {
  struct Wrapped {
    const char* sibling;
    const char* wrapper_type;
    const char* text_type;
    const char* part = "text_config";
  };
  for (const Wrapped& w :
       {Wrapped{"tests/fixtures/configs/qwen2-7b.json", "qwen2_5_vl", "qwen2_5_vl_text"},
        Wrapped{"tests/fixtures/configs/qwen3-8b.json", "qwen3_vl", "qwen3_vl_text"},
        Wrapped{"tests/fixtures/configs/qwen3-30b-a3b.json", "qwen3_vl_moe", "qwen3_vl_moe_text"},
        Wrapped{"tests/fixtures/configs/glm-4.5-air/config.json", "glm4v_moe", "glm4v_moe_text"},
        // Nemotron Nano VL (remote code) nests its language model, Nemotron-H, in llm_config.
        Wrapped{"tests/fixtures/configs/nemotron-3-nano-30b-a3b/config.json",
                "NemotronH_Nano_VL_V2", "nemotron_h", "llm_config"}}) {
    SCOPED_TRACE(w.sibling);
    const std::string sibling_text = testing::read_source_file(w.sibling);
    nlohmann::json text = nlohmann::json::parse(sibling_text);
    text["model_type"] = w.text_type;
    nlohmann::json wrapper = {{"model_type", w.wrapper_type},
                              {w.part, text},
                              {"vision_config", {{"depth", 27}, {"hidden_size", 1152}}}};
    if (text.contains("tie_word_embeddings")) {
      wrapper["tie_word_embeddings"] = text["tie_word_embeddings"];
      wrapper[w.part].erase("tie_word_embeddings");
    }
    Problems problems;
    auto sibling = HfConfig::parse(sibling_text, "sibling.json", problems);
    auto wrapped = HfConfig::parse(wrapper.dump(2), "vl.json", problems);
    ASSERT_TRUE(sibling && wrapped) << testing::describe(problems);
    auto expected = count_active_params(*sibling, problems);
    auto found = count_active_params(*wrapped, problems);
    ASSERT_TRUE(expected && found) << testing::describe(problems);
    EXPECT_EQ(found->model_type, w.text_type);
    EXPECT_EQ(found->active_params, expected->active_params);
    auto expected_shape = model_shape_from_config(*sibling, "sibling", problems);
    auto found_shape = model_shape_from_config(*wrapped, "vl", problems);
    ASSERT_TRUE(expected_shape && found_shape) << testing::describe(problems);
    EXPECT_EQ(found_shape->layers, expected_shape->layers);
    EXPECT_EQ(found_shape->experts, expected_shape->experts);
    EXPECT_EQ(found_shape->moe_layers, expected_shape->moe_layers);
    EXPECT_EQ(found_shape->active_params, expected_shape->active_params);
    // Only the language model counts: the vision tower's sizes add nothing.
    EXPECT_EQ(found_shape->total_params(), expected_shape->total_params());
  }
}

TEST(ActiveParams, UnknownTypeListsTheSupportedOnes) {
  Problems problems;
  auto config = HfConfig::parse("{\"model_type\": \"rwkv\"}", "x.json", problems);
  EXPECT_FALSE(count_active_params(*config, problems));
  ASSERT_EQ(problems.size(), 1u);
  for (const char* type : {"llama", "deepseek_v3", "qwen3_next", "gpt_oss"}) {
    EXPECT_NE(problems[0].expected.find(type), std::string::npos) << type;
  }
}

TEST(ActiveParams, AMissingFileIsAProblem) {
  Problems problems;
  EXPECT_FALSE(count_active_params_of_file("/nonexistent/config.json", problems));
  EXPECT_EQ(problems.at(0).message, "no such file");
}

// A multimodal wrapper's type is unsupported by itself; with its text part null, the message
// says that the language model is what is missing.
TEST(ActiveParams, ANullTextConfigIsNamedBesideTheUnsupportedWrapper) {
  Problems problems;
  auto config =
      HfConfig::parse(R"({"model_type": "qwen3_vl", "text_config": null})", "c.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  EXPECT_FALSE(count_active_params(*config, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "model_type");
  EXPECT_EQ(problems[0].message, "unsupported model_type");
  EXPECT_EQ(problems[0].found, "\"qwen3_vl\" (and text_config null: no language model)");
}

// A multimodal config whose text part is null, or nested once more: each missing field is named
// in the text part, at its line, and the null part is said to be why.
TEST(ActiveParams, AMissingTextPartIsNamedAtItsLine) {
  const std::string path = "models/qwen3.5-122b-a10b/config.json";
  const std::string text = testing::read_source_file(path);
  nlohmann::json config = nlohmann::json::parse(text);
  for (bool nested : {false, true}) {
    nlohmann::json edited = config;
    edited["text_config"] =
        nested ? nlohmann::json{{"text_config", config["text_config"]}} : nlohmann::json();
    std::string written = edited.dump(2);
    Problems problems;
    auto parsed = HfConfig::parse(written, "c.json", problems);
    ASSERT_TRUE(parsed) << testing::describe(problems);
    EXPECT_FALSE(count_active_params(*parsed, problems));
    ASSERT_FALSE(problems.empty());
    EXPECT_EQ(problems[0].message, "missing required field") << testing::describe(problems);
    EXPECT_EQ(problems[0].field, nested ? "text_config.hidden_size" : "hidden_size");
    EXPECT_EQ(problems[0].found, nested ? "nothing"
                                        : "nothing (text_config is null: the language model's "
                                          "fields are missing)");
    const std::string before = written.substr(0, written.find("\"text_config\""));
    EXPECT_EQ(problems[0].position.line,
              1 + static_cast<int>(std::count(before.begin(), before.end(), '\n')));
  }
}

}  // namespace
}  // namespace openrecipes
