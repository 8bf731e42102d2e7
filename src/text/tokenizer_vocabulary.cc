// Loading a tokenizer.json's vocabulary: model.vocab (byte-level text -> id), model.merges in
// rank order, and added_tokens matched before BPE (huggingface/tokenizers' tokenizer.json layout).
#include <fmt/format.h>

#include <algorithm>

#include "text/byte_level.h"
#include "text/tokenizer_impl.h"

namespace openrecipes {
namespace {

// Token ids are below 2^24, so that (left, right) pairs and ranks stay small.
constexpr std::int64_t kIdLimit = std::int64_t{1} << 24;

}  // namespace

// Each added token needs an integer id in range and a non-empty content; `largest` grows to the
// largest id.
bool TokenizerLoader::check_added_token_ids(const nlohmann::json& added_tokens,
                                            std::int64_t& largest) {
  if (!added_tokens.is_array()) return fail("added_tokens", "expected a list");
  for (std::size_t i = 0; i < added_tokens.size(); ++i) {
    const nlohmann::json& token = added_tokens[i];
    std::string where = fmt::format("added_tokens[{}]", i);
    if (!token.is_object() || !token.contains("id") || !token.at("id").is_number_integer()) {
      return fail(where + ".id", "expected an integer id");
    }
    if (!token.contains("content") || !token.at("content").is_string() ||
        token.at("content").get<std::string>().empty()) {
      return fail(where + ".content", "expected a non-empty string");
    }
    std::int64_t id = token.at("id").get<std::int64_t>();
    if (id < 0 || id >= kIdLimit)
      return fail(where + ".id", fmt::format("{} is outside 0..{}", id, kIdLimit - 1));
    largest = std::max(largest, id);
  }
  return true;
}

// Vocabulary: byte-level text -> id, every byte reachable.
bool TokenizerLoader::read_vocabulary(const TokenizerJson& parsed,
                                      const nlohmann::json& added_tokens) {
  if (parsed.vocab.empty()) return fail("model.vocab", "missing or empty");
  ids_by_text_.reserve(parsed.vocab.size());
  std::int64_t largest = -1;
  for (const auto& [text, id] : parsed.vocab) largest = std::max(largest, id);
  if (!check_added_token_ids(added_tokens, largest)) return false;
  if (largest >= kIdLimit)
    return fail("model.vocab", fmt::format("id {} is outside 0..{}", largest, kIdLimit - 1));
  std::vector<std::string>& tokens = tokenizer_->tokens_;
  tokens.assign(static_cast<std::size_t>(largest + 1), std::string());
  std::vector<std::int32_t> vocab_ids;
  vocab_ids.reserve(parsed.vocab.size());
  for (const auto& [text, id64] : parsed.vocab) {
    if (id64 < 0) return fail("model.vocab", fmt::format("'{}' has a negative id", text));
    if (!tokens[static_cast<std::size_t>(id64)].empty()) {
      return fail("model.vocab", fmt::format("id {} appears twice", id64));
    }
    std::int32_t id = static_cast<std::int32_t>(id64);
    std::optional<std::string> raw = byte_level_decode(text);
    if (!raw)
      return fail("model.vocab", fmt::format("entry '{}' is not in the byte-level alphabet", text));
    vocab_ids.push_back(id);
    tokens[static_cast<std::size_t>(id)] = std::move(*raw);
    ids_by_text_.emplace(text, id);
  }
  impl_->ids_by_bytes.build(tokens, vocab_ids);
  for (int b = 0; b < 256; ++b) {
    auto it = ids_by_text_.find(byte_level_char(static_cast<std::uint8_t>(b)));
    if (it == ids_by_text_.end())
      return fail("model.vocab", fmt::format("no token for byte 0x{:02X}", b));
    impl_->byte_ids[static_cast<std::size_t>(b)] = it->second;
  }
  return true;
}

// Merges, in rank order; the first rank of a repeated pair wins.
bool TokenizerLoader::read_merges(const TokenizerJson& parsed) {
  impl_->merges.reserve(parsed.merges.size());
  std::int32_t rank = 0;
  std::string joined;
  for (const auto& [left, right] : parsed.merges) {
    joined.assign(left).append(right);
    auto l = ids_by_text_.find(left), r = ids_by_text_.find(right), m = ids_by_text_.find(joined);
    if (l == ids_by_text_.end() || r == ids_by_text_.end() || m == ids_by_text_.end()) {
      return fail(fmt::format("model.merges[{}]", rank),
                  fmt::format("'{} {}' names a token not in the vocabulary", left, right));
    }
    impl_->merges.insert(Tokenizer::Impl::key(l->second, r->second),
                         Tokenizer::Impl::Merge{rank, m->second});
    ++rank;
  }
  return true;
}

// Added tokens: their text replaces the vocabulary's at their id; each is unique.
bool TokenizerLoader::read_added_tokens(const nlohmann::json& added_tokens) {
  std::vector<std::string>& tokens = tokenizer_->tokens_;
  impl_->special.assign(tokens.size(), false);
  for (std::size_t i = 0; i < added_tokens.size(); ++i) {
    const nlohmann::json& token = added_tokens[i];
    std::string where = fmt::format("added_tokens[{}]", i);
    std::optional<bool> special = bool_field(token, "special", where + ".special", false);
    std::optional<bool> lstrip = bool_field(token, "lstrip", where + ".lstrip", false);
    std::optional<bool> rstrip = bool_field(token, "rstrip", where + ".rstrip", false);
    std::optional<bool> single_word =
        bool_field(token, "single_word", where + ".single_word", false);
    if (!special || !lstrip || !rstrip || !single_word) return false;
    // check_added_token_ids checked content and id.
    AddedToken added{token.at("content").get<std::string>(), token.at("id").get<std::int32_t>(),
                     *special, *lstrip, *rstrip};
    if (*single_word) {
      return fail("added_tokens", fmt::format("'{}': single_word is unsupported", added.content));
    }
    const std::string& at_id = tokens[static_cast<std::size_t>(added.id)];
    if (impl_->added_by_content.count(added.content) ||
        (!at_id.empty() && at_id != added.content)) {
      return fail("added_tokens",
                  fmt::format("'{}' (id {}) clashes with another token", added.content, added.id));
    }
    tokens[static_cast<std::size_t>(added.id)] = added.content;
    impl_->special[static_cast<std::size_t>(added.id)] = added.special;
    impl_->added_by_content.emplace(added.content, added.id);
    impl_->added.push_back(std::move(added));
  }
  return true;
}

// The alternation of the added tokens, longest first so that a token never matches inside a
// longer one.
bool TokenizerLoader::compile_added_pattern() {
  if (impl_->added.empty()) return true;
  std::vector<const AddedToken*> ordered;
  for (const AddedToken& a : impl_->added) ordered.push_back(&a);
  std::sort(ordered.begin(), ordered.end(), [](const AddedToken* a, const AddedToken* b) {
    return a->content.size() != b->content.size() ? a->content.size() > b->content.size()
                                                  : a->content < b->content;
  });
  std::string alternation;
  for (const AddedToken* a : ordered) {
    std::string piece = escape_for_regex(a->content);
    if (a->lstrip) piece = "\\s*" + piece;
    if (a->rstrip) piece += "\\s*";
    alternation += (alternation.empty() ? "" : "|") + piece;
  }
  impl_->added_pattern = compile(alternation, alternation, "added_tokens");
  return impl_->added_pattern != nullptr;
}

}  // namespace openrecipes
