// Encoding and decoding with a loaded tokenizer: added tokens first, then the normalizer, the
// Split regexes and BPE per piece through a per-thread memo. Loading is in tokenizer_loading.cc
// and tokenizer_vocabulary.cc, BPE in byte_pair_merges.cc.
#include "text/tokenizer.h"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "base/error.h"
#include "base/utf8.h"
#include "text/tokenizer_impl.h"

namespace openrecipes {
namespace {

// NFC with an explicit length: utf8proc_NFC stops at a NUL byte, which text may hold.
std::string nfc_normalize(std::string_view text) {
  utf8proc_uint8_t* result = nullptr;
  utf8proc_ssize_t length =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &result,
                   static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (length < 0) return std::string(text);
  std::string out(reinterpret_cast<char*>(result), static_cast<std::size_t>(length));
  std::free(result);
  return out;
}

}  // namespace

// Open addressing over two arenas (piece bytes, token ids): one probe and one memcmp per
// lookup, and no allocation per piece, which a node-based map spends most of its time on.
struct EncodeCache::Impl {
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t key_offset = 0, ids_offset = 0;
    std::uint16_t key_length = 0, ids_length = 0;  // 0 key_length: empty slot
  };
  std::vector<Slot> slots = std::vector<Slot>(1 << 16);
  std::size_t used = 0;
  std::string keys;
  std::vector<std::int32_t> ids;

  static std::uint64_t hash_of(std::string_view piece) {
    return hash_bytes(piece) | 1;  // never 0
  }
  const Slot* find(std::string_view piece, std::uint64_t hash) const {
    std::size_t mask = slots.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots[i];
      if (slot.key_length == 0) return nullptr;
      if (slot.hash == hash && slot.key_length == piece.size() &&
          std::memcmp(keys.data() + slot.key_offset, piece.data(), piece.size()) == 0) {
        return &slot;
      }
    }
  }
  void insert(std::string_view piece, std::uint64_t hash, const std::int32_t* first,
              std::size_t count) {
    if (keys.size() + piece.size() > (64u << 20) || ids.size() + count > (16u << 20)) clear();
    if ((used + 1) * 2 > slots.size()) grow();
    Slot slot{hash, static_cast<std::uint32_t>(keys.size()), static_cast<std::uint32_t>(ids.size()),
              static_cast<std::uint16_t>(piece.size()), static_cast<std::uint16_t>(count)};
    keys.append(piece);
    ids.insert(ids.end(), first, first + count);
    place(slot);
    ++used;
  }
  void place(const Slot& slot) {
    std::size_t mask = slots.size() - 1;
    std::size_t i = slot.hash & mask;
    while (slots[i].key_length != 0) i = (i + 1) & mask;
    slots[i] = slot;
  }
  void grow() {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    for (const Slot& slot : old) {
      if (slot.key_length != 0) place(slot);
    }
  }
  void clear() {
    std::fill(slots.begin(), slots.end(), Slot{});
    used = 0;
    keys.clear();
    ids.clear();
  }
};
EncodeCache::EncodeCache() : impl(std::make_unique<Impl>()) {}
EncodeCache::~EncodeCache() = default;

Tokenizer::Tokenizer() : impl_(std::make_unique<Impl>()) {}
Tokenizer::~Tokenizer() = default;

void Tokenizer::Impl::encode_piece(std::string_view piece, EncodeCache& cache,
                                   TokenIds& out) const {
  if (piece.size() >
      4096) {  // very long pieces rarely repeat; whitespace runs of code do, so 4 KiB
    bpe(piece, out);
    return;
  }
  EncodeCache::Impl& memo = *cache.impl;
  std::uint64_t hash = EncodeCache::Impl::hash_of(piece);
  if (const EncodeCache::Impl::Slot* slot = memo.find(piece, hash)) {
    const std::int32_t* first = memo.ids.data() + slot->ids_offset;
    out.insert(out.end(), first, first + slot->ids_length);
    return;
  }
  std::size_t start = out.size();
  bpe(piece, out);
  memo.insert(piece, hash, out.data() + start, out.size() - start);
}

// Applies the Split regexes (Isolated: matches and the text between them are pieces).
void Tokenizer::Impl::encode_text(std::string_view text, EncodeCache& cache, TokenIds& out) const {
  std::string normalized;
  if (nfc && !text.empty()) {
    normalized = nfc_normalize(text);
    text = normalized;
  }
  split(text, 0, cache, out);
}

void Tokenizer::Impl::split(std::string_view text, std::size_t level, EncodeCache& cache,
                            TokenIds& out) const {
  if (text.empty()) return;
  if (level == splits.size()) {
    encode_piece(text, cache, out);
    return;
  }
  std::size_t last = 0;
  splits[level]->for_each_match(text, [&](std::size_t begin, std::size_t end) {
    if (begin > last) split(text.substr(last, begin - last), level + 1, cache, out);
    split(text.substr(begin, end - begin), level + 1, cache, out);
    last = end;
  });
  if (last < text.size()) split(text.substr(last), level + 1, cache, out);
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text, EncodeCache& cache,
                                            bool match_added_tokens) const {
  if (std::optional<std::size_t> bad = first_invalid_utf8(text)) {
    throw BugError(fmt::format(
        "Tokenizer::encode: the text is not valid UTF-8 at byte offset {} (check it first)", *bad));
  }
  TokenIds out;
  out.reserve(text.size() / 3);
  const Impl& impl = *impl_;
  if (!match_added_tokens || !impl.added_pattern) {
    impl.encode_text(text, cache, out);
    return out;
  }
  std::size_t last = 0;
  impl.added_pattern->for_each_match(text, [&](std::size_t begin, std::size_t end) {
    std::string_view match = text.substr(begin, end - begin);
    // lstrip/rstrip tokens swallow the whitespace around them; find the token inside.
    std::size_t lead = match.find_first_not_of(" \t\r\n");
    std::string_view core = match.substr(lead == std::string_view::npos ? 0 : lead);
    core = core.substr(0, core.find_last_not_of(" \t\r\n") + 1);
    auto it = impl.added_by_content.find(core);
    if (it == impl.added_by_content.end()) return;  // cannot happen: the pattern lists them
    impl.encode_text(text.substr(last, begin - last), cache, out);
    out.push_back(it->second);
    last = end;
  });
  impl.encode_text(text.substr(last), cache, out);
  return out;
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text, bool match_added_tokens) const {
  EncodeCache cache;
  return encode(text, cache, match_added_tokens);
}

std::string Tokenizer::normalize(std::string_view text) const {
  if (!impl_->nfc || text.empty()) return std::string(text);
  return nfc_normalize(text);
}

std::string Tokenizer::decode(const std::vector<std::int32_t>& ids) const {
  std::string out;
  for (std::int32_t id : ids) out += token_bytes(id);
  return out;
}

std::string_view Tokenizer::token_bytes(std::int32_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= tokens_.size()) {
    throw BugError(
        fmt::format("token id {} is outside the vocabulary (0..{})", id, tokens_.size() - 1));
  }
  return tokens_[static_cast<std::size_t>(id)];
}

std::optional<std::int32_t> Tokenizer::added_token_id(std::string_view content) const {
  auto it = impl_->added_by_content.find(content);
  if (it == impl_->added_by_content.end()) return std::nullopt;
  return it->second;
}

bool Tokenizer::is_special(std::int32_t id) const {
  return id >= 0 && static_cast<std::size_t>(id) < impl_->special.size() &&
         impl_->special[static_cast<std::size_t>(id)];
}

}  // namespace openrecipes
