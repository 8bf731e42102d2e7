// Renders a conversation as one model's chat format, and marks which characters are supervised
// (trained on). The rules, with worked examples, are in docs/loss-masks.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "text/conversation.h"

namespace openrecipes {

/// The loss-mask types of the catalog (`workload.dataset.build.loss_mask`).
enum class LossMaskType { kQwen3, kQwen35, kGptOss };

/// Parses "qwen3", "qwen3_5" or "gpt_oss"; nullopt for any other name (the CLI checks the name
/// against these three before it calls this).
std::optional<LossMaskType> parse_loss_mask_type(const std::string& name);
/// The name of a type, as in recipes.
std::string loss_mask_name(LossMaskType type);

/// A byte range [begin, end) of the rendered text.
struct TextSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// A rendered conversation: the text, and the byte ranges whose tokens are supervised.
struct RenderedChat {
  std::string text;
  std::vector<TextSpan> supervised;  ///< sorted, disjoint
};

/// Renders `conversation`. Deterministic: no date, no randomness.
/// - kQwen3, kQwen35: ChatML as Qwen3's own chat template renders it (reasoning shown as
///   `<think>\n...\n</think>\n\n` for assistant turns after the last user query; tool calls as
///   `<tool_call>` blocks; tool results inside a user turn as `<tool_response>`). Supervised, in
///   each assistant turn: everything after `<|im_start|>assistant\n` through `<|im_end|>\n`; for
///   kQwen35 also not an opening `<think>\n` right after the header (slime's qwen3_5 rule).
/// - kGptOss: the harmony format (openai/harmony) with a fixed system message and the
///   conversation's system text as the developer message. Supervised, in each assistant message:
///   everything after `<|start|>assistant` through its `<|end|>`, `<|return|>` or `<|call|>`.
/// Returns nullopt and appends a Problem (field `messages[i]`, rule `conversation`, no file: the
/// caller knows it) for a gpt_oss tool message whose tool cannot be named.
std::optional<RenderedChat> render_chat(const Conversation& conversation, LossMaskType type,
                                        Problems& problems);

/// The special tokens a format writes; a tokenizer without them cannot render it.
std::vector<std::string> required_special_tokens(LossMaskType type);

}  // namespace openrecipes
