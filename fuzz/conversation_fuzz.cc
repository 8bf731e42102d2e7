// Conversations (text/conversation.h) read from any bytes as a JSON file, then rendered in each
// chat format (text/chat_format.h) and tokenized with its loss mask (text/loss_mask.h) by the
// real tokenizer of that format (gpt-oss for gpt_oss, Qwen3 for qwen3 and qwen3_5; deps/npm).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_support.h"
#include "text/chat_format.h"
#include "text/conversation.h"
#include "text/loss_mask.h"
#include "text/tokenizer.h"

namespace {

std::shared_ptr<const openrecipes::Tokenizer> gpt_oss, qwen3;

std::shared_ptr<const openrecipes::Tokenizer> load(const std::string& package) {
  openrecipes::Problems problems;
  auto tokenizer =
      openrecipes::Tokenizer::load(openrecipes::fuzz::npm_tokenizer_path(package), problems);
  openrecipes::fuzz::check(tokenizer != nullptr, "a real tokenizer loads", problems);
  return tokenizer;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gpt_oss = load("tokenizer-gptoss");
  qwen3 = load("tokenizer-qwen3");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  Problems problems;
  std::optional<Conversation> conversation = read_conversation_file(
      fuzz::write_scratch_file("conversation.json", fuzz::as_text(data, size)), problems);
  fuzz::check(conversation.has_value() || !problems.empty(),
              "read_conversation_file: nullopt has a problem", problems);
  if (!conversation) return 0;
  for (LossMaskType type : {LossMaskType::kQwen3, LossMaskType::kQwen35, LossMaskType::kGptOss}) {
    Problems render_problems;
    std::optional<RenderedChat> rendered = render_chat(*conversation, type, render_problems);
    fuzz::check(rendered.has_value() || !render_problems.empty(),
                "render_chat: nullopt has a problem", render_problems);
    if (!rendered) continue;
    std::size_t previous_end = 0;
    for (const TextSpan& span : rendered->supervised) {
      fuzz::check(
          previous_end <= span.begin && span.begin <= span.end && span.end <= rendered->text.size(),
          "render_chat: spans sorted, disjoint and inside the text");
      previous_end = span.end;
    }
    const Tokenizer& tokenizer = type == LossMaskType::kGptOss ? *gpt_oss : *qwen3;
    EncodeCache cache;
    Problems mask_problems;
    std::optional<MaskedTokens> masked =
        tokenize_chat(tokenizer, *conversation, type, cache, mask_problems);
    fuzz::check(masked.has_value() || !mask_problems.empty(),
                "tokenize_chat: nullopt has a problem", mask_problems);
    if (masked) {
      fuzz::check(masked->ids.size() == masked->mask.size(), "tokenize_chat: one mask per token");
    }
  }
  return 0;
}
