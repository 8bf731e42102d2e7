// A conversation as training tokens: rendered in its chat format, tokenized, and masked so that
// only the supervised tokens carry a loss target.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "text/chat_format.h"
#include "text/conversation.h"
#include "text/tokenizer.h"

namespace openrecipes {

/// Token ids with a 0/1 loss mask of the same length, and the text they came from.
struct MaskedTokens {
  std::string text;
  std::vector<std::int32_t> ids;
  std::vector<std::uint8_t> mask;  ///< 1 = supervised
};

/// Renders `conversation` as `type`, tokenizes the whole text at once (so that tokens match what
/// the tokenizer makes of the rendered text, special tokens included) and marks a token
/// supervised when its first byte lies in a supervised span. Message text is normalized first
/// (NFC for Qwen3), so the spans stay where they were; message text must be valid UTF-8 (as JSON
/// strings are). Returns nullopt and appends a Problem when the tokenizer lacks the format's
/// special tokens (file: the tokenizer) or the conversation cannot be rendered (no file: the
/// caller knows it).
std::optional<MaskedTokens> tokenize_chat(const Tokenizer& tokenizer,
                                          const Conversation& conversation, LossMaskType type,
                                          EncodeCache& cache, Problems& problems);

}  // namespace openrecipes
