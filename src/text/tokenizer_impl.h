// The inside of a Tokenizer, shared by the files that load it (tokenizer_loading.cc,
// tokenizer_vocabulary.cc), run BPE (byte_pair_merges.cc) and encode (tokenizer.cc). Private to
// the text layer.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/split_regex.h"
#include "text/tokenizer.h"
#include "text/tokenizer_json.h"

namespace openrecipes {

// A fast hash for the short byte strings pieces are: 8 bytes at a time, then a 64-bit finalizer
// (splitmix64's). Quality is ample for open addressing; std::hash's murmur costs more per piece.
/// 64-bit hash of `bytes`.
inline std::uint64_t hash_bytes(std::string_view bytes) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ bytes.size();
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  auto mix = [](std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h = mix(h ^ word);
  }
  if (n > 0) {
    std::uint64_t word = 0;
    std::memcpy(&word, p, n);
    h = mix(h ^ word);
  }
  return h;
}

/// std::hash over string_view, for heterogeneous lookup in unordered_map.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// Token ids as encode builds them.
using TokenIds = std::vector<std::int32_t>;

/// One entry of tokenizer.json's added_tokens.
struct AddedToken {
  std::string content;
  std::int32_t id = 0;
  bool special = false;
  bool lstrip = false;  ///< swallows the whitespace before it
  bool rstrip = false;  ///< swallows the whitespace after it
};

/// What a loaded tokenizer holds besides its token bytes (Tokenizer::tokens_): the normalizer
/// and pre-tokenizer settings, the vocabulary and merge tables, and the added tokens.
struct Tokenizer::Impl {
  bool nfc = false;
  bool ignore_merges = false;
  std::vector<std::unique_ptr<SplitRegex>> splits;  // applied in order (Isolated behaviour)
  std::unique_ptr<SplitRegex> added_pattern;        // alternation of every added token
  std::vector<AddedToken> added;
  // Token bytes -> id, open addressing; the keys are the tokens' own bytes (`tokens` below).
  struct VocabTable {
    struct Slot {
      std::uint64_t hash = 0;  // 0: empty
      std::int32_t id = -1;
    };
    std::vector<Slot> slots;
    const std::vector<std::string>* tokens = nullptr;
    static std::uint64_t hash_of(std::string_view bytes) { return hash_bytes(bytes) | 1; }
    void build(const std::vector<std::string>& all, const std::vector<std::int32_t>& ids) {
      tokens = &all;
      std::size_t size = 16;
      while (size < ids.size() * 2) size <<= 1;
      slots.assign(size, Slot{});
      for (std::int32_t id : ids) {
        std::uint64_t hash = hash_of(all[static_cast<std::size_t>(id)]);
        std::size_t i = hash & (size - 1);
        while (slots[i].hash != 0) i = (i + 1) & (size - 1);
        slots[i] = {hash, id};
      }
    }
    std::optional<std::int32_t> find(std::string_view bytes) const {
      std::uint64_t hash = hash_of(bytes);
      std::size_t mask = slots.size() - 1;
      for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
        const Slot& slot = slots[i];
        if (slot.hash == 0) return std::nullopt;
        if (slot.hash == hash && (*tokens)[static_cast<std::size_t>(slot.id)] == bytes)
          return slot.id;
      }
    }
  };
  VocabTable ids_by_bytes;
  std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>> added_by_content;
  std::array<std::int32_t, 256> byte_ids{};
  struct Merge {
    std::int32_t rank;
    std::int32_t merged;
  };
  // (left id, right id) -> merge, open addressing: 446k merges in one allocation.
  struct MergeTable {
    struct Slot {
      std::uint64_t key = ~0ull;
      Merge merge{};
    };
    std::vector<Slot> slots;
    std::uint64_t mask = 0;
    void reserve(std::size_t count) {
      std::size_t size = 16;
      while (size < count * 2) size <<= 1;
      slots.assign(size, Slot{});
      mask = size - 1;
    }
    static std::uint64_t hash(std::uint64_t key) {
      key ^= key >> 33;
      key *= 0xff51afd7ed558ccdull;
      key ^= key >> 33;
      return key;
    }
    bool insert(std::uint64_t key, Merge merge) {  // false if the pair is already there
      for (std::uint64_t i = hash(key) & mask;; i = (i + 1) & mask) {
        if (slots[i].key == key) return false;
        if (slots[i].key == ~0ull) {
          slots[i] = {key, merge};
          return true;
        }
      }
    }
    const Merge* find(std::uint64_t key) const {
      for (std::uint64_t i = hash(key) & mask;; i = (i + 1) & mask) {
        if (slots[i].key == key) return &slots[i].merge;
        if (slots[i].key == ~0ull) return nullptr;
      }
    }
  };
  MergeTable merges;
  std::vector<bool> special;

  static std::uint64_t key(std::int32_t a, std::int32_t b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
           static_cast<std::uint32_t>(b);
  }

  /// BPE over one piece's bytes (huggingface/tokenizers Word::merge_all): repeatedly merge the
  /// adjacent pair of lowest rank, leftmost first; appends the ids to `out` (byte_pair_merges.cc).
  void bpe(std::string_view piece, TokenIds& out) const;
  /// Pieces up to this many bytes take bpe_small's path.
  static constexpr int kSmallPiece = 48;
  /// bpe for a short piece: the same merge order with a linear scan over arrays on the stack.
  void bpe_small(std::string_view piece, TokenIds& out) const;
  /// bpe through the per-thread memo of pieces already split (tokenizer.cc).
  void encode_piece(std::string_view piece, EncodeCache& cache, TokenIds& out) const;
  /// Normalizes `text` and applies the Split regexes (Isolated: matches and the text between them
  /// are pieces), encoding each piece.
  void encode_text(std::string_view text, EncodeCache& cache, TokenIds& out) const;
  /// The Split regexes from `level` on over `text`.
  void split(std::string_view text, std::size_t level, EncodeCache& cache, TokenIds& out) const;
};

/// A JSON value as a problem's "found": its kind and its text, cut to 80 characters, e.g.
/// "the number 1000", "null", "the string \"x\"".
std::string json_value_text(const nlohmann::json& value);

/// One load of a tokenizer.json, in named steps. Each step reads one part of the file into the
/// tokenizer and, when that part is unsupported or broken, appends a Problem (file, field path,
/// rule `tokenizer`) and returns false; the first failing step ends the load.
/// tokenizer_loading.cc holds the file, normalizer, pre-tokenizer and model steps;
/// tokenizer_vocabulary.cc the vocabulary, merges and added tokens.
class TokenizerLoader {
 public:
  TokenizerLoader(const std::string& path, Problems& problems);
  /// The loaded tokenizer, or nullptr with the problem appended. Throws IoError when the file
  /// cannot be read.
  std::shared_ptr<const Tokenizer> load();

 private:
  std::shared_ptr<const Tokenizer> load_parsed(const TokenizerJson& parsed);
  bool fail(const std::string& field, const std::string& message, std::string expected = "",
            std::string found = "");
  // `pattern` compiled for `field`; `shown` is how the file spells it (when it differs).
  std::unique_ptr<SplitRegex> compile(const std::string& pattern, const std::string& shown,
                                      const std::string& field);
  // `object[key]` as a string (`fallback` when absent), or nullopt and a problem naming `field`
  // (expected a string, found the value) when it has another type, null included.
  std::optional<std::string> string_field(const nlohmann::json& object, const char* key,
                                          const std::string& field, const std::string& fallback);
  // `object[key]` as true or false (`fallback` when absent), or nullopt and a problem.
  std::optional<bool> bool_field(const nlohmann::json& object, const char* key,
                                 const std::string& field, bool fallback);
  bool read_normalizer(const nlohmann::json& json);
  bool read_pre_tokenizer(const nlohmann::json& json);
  bool read_pre_tokenizer_step(const nlohmann::json& step, const std::string& where,
                               bool& byte_level);
  bool read_split_step(const nlohmann::json& step, const std::string& where);
  bool read_model_options(const nlohmann::json& model);
  bool check_added_token_ids(const nlohmann::json& added_tokens, std::int64_t& largest);
  bool read_vocabulary(const TokenizerJson& parsed, const nlohmann::json& added_tokens);
  bool read_merges(const TokenizerJson& parsed);
  bool read_added_tokens(const nlohmann::json& added_tokens);
  bool compile_added_pattern();

  const std::string& path_;
  Problems& problems_;
  std::shared_ptr<Tokenizer> tokenizer_;
  Tokenizer::Impl* impl_ = nullptr;
  // Byte-level vocabulary text -> id; the views point into the parsed file's vocab.
  std::unordered_map<std::string_view, std::int32_t> ids_by_text_;
};

}  // namespace openrecipes
