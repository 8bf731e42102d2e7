#include "text/loss_mask.h"

#include <fmt/format.h>

#include "base/error.h"

namespace openrecipes {

std::optional<MaskedTokens> tokenize_chat(const Tokenizer& tokenizer,
                                          const Conversation& conversation, LossMaskType type,
                                          EncodeCache& cache, Problems& problems) {
  for (const std::string& token : required_special_tokens(type)) {
    if (!tokenizer.added_token_id(token)) {
      problems.push_back({tokenizer.path(),
                          {},
                          "",
                          "loss-mask",
                          fmt::format("the tokenizer has no {} token, which the {} format needs; "
                                      "use that model's tokenizer",
                                      token, loss_mask_name(type)),
                          "",
                          ""});
      return std::nullopt;
    }
  }
  Conversation normalized = conversation;
  for (Message& m : normalized) {
    m.content = tokenizer.normalize(m.content);
    m.reasoning = tokenizer.normalize(m.reasoning);
    for (ToolCall& call : m.tool_calls) call.arguments = tokenizer.normalize(call.arguments);
  }
  std::optional<RenderedChat> rendered = render_chat(normalized, type, problems);
  if (!rendered) return std::nullopt;
  RenderedChat& chat = *rendered;
  MaskedTokens out;
  out.ids = tokenizer.encode(chat.text, cache);
  out.mask.reserve(out.ids.size());
  std::size_t offset = 0, span = 0;
  for (std::int32_t id : out.ids) {
    while (span < chat.supervised.size() && chat.supervised[span].end <= offset) ++span;
    bool inside = span < chat.supervised.size() && chat.supervised[span].begin <= offset;
    out.mask.push_back(inside ? 1 : 0);
    offset += tokenizer.token_bytes(id).size();
  }
  if (offset != chat.text.size()) {
    throw BugError("the tokens do not spell out the rendered text; the spans cannot be mapped");
  }
  out.text = std::move(chat.text);
  return out;
}

}  // namespace openrecipes
