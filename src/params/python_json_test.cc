#include "params/python_json.h"

#include <gtest/gtest.h>

#include "params/active_params.h"
#include "params/hf_config.h"
#include "test_support.h"

namespace openrecipes {
namespace {

TEST(PythonJson, NonFiniteValuesBecomeNumbersOfTheSameLength) {
  std::string text = R"({"time_step_limit": [0.0, Infinity], "a": -Infinity, "b": NaN})";
  std::string masked = mask_python_nonfinite_numbers(text);
  EXPECT_EQ(masked.size(), text.size());
  EXPECT_EQ(masked, R"({"time_step_limit": [0.0, 1.000000], "a": -1.000000, "b": 0.0})");
}

TEST(PythonJson, OnlyWhereJsonDumpsWritesThem) {
  // Inside strings, as keys, in other spellings or glued to other text: left alone.
  for (const char* text :
       {R"({"a": "Infinity"})", R"({"a": "x\"NaN"})", R"({Infinity: 1})", R"({"a": infinity})",
        R"({"a": inf})", R"({"a": nan})", R"({"a": +Infinity})", R"({"a": Infinity1})",
        R"({"a": NaNa})", R"({"a": [1 Infinity]})"}) {
    EXPECT_EQ(mask_python_nonfinite_numbers(text), text) << text;
  }
}

TEST(PythonJson, AConfigWithInfinityIsRead) {
  Problems problems;
  std::optional<HfConfig> config = HfConfig::parse(
      R"({"model_type": "llama", "time_step_limit": [0.0, Infinity], "x": NaN, "y": -Infinity,
          "hidden_size": 4096})",
      "config.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  EXPECT_EQ(config->model_type(), "llama");
  EXPECT_EQ(config->integer("hidden_size"), 4096);
}

TEST(PythonJson, OtherNonJsonStaysAnErrorAtItsByte) {
  for (const auto& [text, byte] : std::vector<std::pair<std::string, int>>{
           {R"({"a": inf})", 7}, {R"({"a": +Infinity})", 7}, {R"({Infinity: 1})", 2}}) {
    Problems problems;
    EXPECT_FALSE(HfConfig::parse(text, "config.json", problems)) << text;
    ASSERT_EQ(problems.size(), 1u) << text;
    EXPECT_EQ(problems[0].message, "not valid JSON at byte " + std::to_string(byte)) << text;
    EXPECT_EQ(problems[0].file, "config.json");
  }
}

TEST(PythonJson, BadJsonNamesTheLineAndColumnOfItsByte) {
  Problems problems;
  EXPECT_FALSE(HfConfig::parse("{\"a\": 1,\n  \"b\": inf}", "config.json", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].position.line, 2);
  EXPECT_EQ(problems[0].position.column, 8);  // the 'i' of inf, the byte it stopped at
}

// Found by fuzz/hf_config_fuzz.cc: json::parse throws a number beyond a double's range as
// out_of_range, not parse_error, and `openrecipes active-params` said "internal error".
TEST(PythonJson, ANumberBeyondADoubleIsNamedAtItsLine) {
  for (const std::string& number :
       std::vector<std::string>{"1e999", "-1e505", "1" + std::string(400, '0')}) {
    Problems problems;
    EXPECT_FALSE(HfConfig::parse("{\"a\": 1,\n  \"b\": " + number + "}", "config.json", problems));
    ASSERT_EQ(problems.size(), 1u) << number;
    EXPECT_NE(problems[0].message.find("number out of range"), std::string::npos)
        << problems[0].message;
    EXPECT_EQ(problems[0].position.line, 2) << number;
    EXPECT_EQ(problems[0].file, "config.json");
  }
}

TEST(PythonJson, AnInfiniteSizeIsAWrongTypeAtItsField) {
  Problems problems;
  std::optional<HfConfig> config = HfConfig::parse(
      "{\"model_type\": \"llama\",\n \"hidden_size\": Infinity}", "config.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  config->integer("hidden_size");
  ASSERT_EQ(config->problems().size(), 1u);
  EXPECT_EQ(config->problems()[0].field, "hidden_size");
  EXPECT_EQ(config->problems()[0].position.line, 2);
  EXPECT_NE(config->problems()[0].found.find("Infinity"), std::string::npos)
      << config->problems()[0].found;
}

TEST(PythonJson, ANonFiniteStringFieldIsNamedAsANumber) {
  Problems problems;
  std::optional<HfConfig> config = HfConfig::parse(R"({"model_type": NaN})", "c.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  EXPECT_EQ(config->model_type(), "");
  ASSERT_EQ(config->problems().size(), 1u);
  EXPECT_EQ(config->problems()[0].found, "the non-finite number NaN");
}

TEST(HfConfigReads, AByteOrderMarkIsIgnored) {
  Problems problems;
  std::optional<HfConfig> config = HfConfig::parse(
      "\xEF\xBB\xBF{\"model_type\": \"llama\", \"hidden_size\": 4096}", "c.json", problems);
  ASSERT_TRUE(config) << testing::describe(problems);
  EXPECT_EQ(config->integer("hidden_size"), 4096);
  EXPECT_TRUE(config->problems().empty()) << testing::describe(config->problems());
}

TEST(HfConfigReads, AWholeNumberBeyondInt64IsTooLargeNotAWrongType) {
  for (const char* number : {"1e30", "9223372036854775808"}) {
    Problems problems;
    std::optional<HfConfig> config =
        HfConfig::parse(std::string(R"({"model_type": "llama", "hidden_size": )") + number + "}",
                        "c.json", problems);
    ASSERT_TRUE(config) << number;
    config->integer("hidden_size");
    ASSERT_EQ(config->problems().size(), 1u) << number;
    EXPECT_EQ(config->problems()[0].message, "too large") << number;
    EXPECT_EQ(config->problems()[0].found, number);
  }
}

TEST(HfConfigReads, AWholeFloatIsJudgedByItsValueFirst) {
  // Outside the bounds: too large (or small), as the same integer would be, however it is written.
  // Inside them: a float where an integer belongs.
  struct Case {
    const char* number;
    const char* message;
  };
  for (const Case& c :
       {Case{"1e18", "too large"}, Case{"1e6", "too large"}, Case{"-2.0", "too small"},
        Case{"36.0", "wrong type"}, Case{"4096.5", "wrong type"}}) {
    Problems problems;
    std::optional<HfConfig> config = HfConfig::parse(
        std::string(R"({"model_type": "llama", "num_hidden_layers": )") + c.number + "}", "c.json",
        problems);
    ASSERT_TRUE(config) << c.number;
    config->integer("num_hidden_layers", 1, 100'000);
    ASSERT_EQ(config->problems().size(), 1u) << c.number;
    EXPECT_EQ(config->problems()[0].message, c.message) << c.number;
  }
}

TEST(HfConfigReads, AnEmptyTextConfigSaysTheLanguageModelIsMissing) {
  Problems problems;
  EXPECT_FALSE(
      HfConfig::parse("{\"model_type\": \"qwen3_vl\",\n \"text_config\": {}}", "c.json", problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "text_config");
  EXPECT_EQ(problems[0].position.line, 2);
  EXPECT_EQ(problems[0].message, "holds no language model");
  EXPECT_EQ(problems[0].found, "an empty object");
}

TEST(HfConfigReads, ASizeReadTwiceIsReportedOnce) {
  std::string text = testing::read_source_file("tests/fixtures/configs/llama-3.1-8b.json");
  std::string heads = "\"num_attention_heads\": 32";
  ASSERT_NE(text.find(heads), std::string::npos);
  text.replace(text.find(heads), heads.size(), "\"num_attention_heads\": 0");
  Problems problems;
  std::optional<HfConfig> config = HfConfig::parse(text, "llama.json", problems);
  ASSERT_TRUE(config);
  EXPECT_FALSE(count_active_params(*config, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "num_attention_heads");
}

}  // namespace
}  // namespace openrecipes
