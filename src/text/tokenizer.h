// Byte-level BPE tokenizers read from a Hugging Face tokenizer.json (gpt-oss, Qwen3): NFC or no
// normalizer, added tokens matched first, the file's own Split regex (PCRE2, UTF + UCP + JIT),
// ByteLevel, and BPE merges by rank as in huggingface/tokenizers (models/bpe/word.rs).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/problem.h"

namespace openrecipes {

/// Per-thread memo of pieces already split into tokens (text repeats, so this is most of the
/// speed). Not shared between threads.
class EncodeCache {
 public:
  EncodeCache();
  ~EncodeCache();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// One loaded tokenizer. Immutable after load; encode and decode are safe from many threads
/// (each with its own EncodeCache).
class Tokenizer {
 public:
  /// Reads the tokenizer.json at `path`. Returns nullptr and appends one Problem (file `path`,
  /// rule `tokenizer` or `tokenizer.json`, the field path such as `pre_tokenizer[0].type` or
  /// `model.merges[3]`, line:col for bad JSON) when it is a tokenizer this code does not read
  /// (another model or pre-tokenizer type, a feature it does not implement) or a broken one. Throws
  /// IoError when the file cannot be read.
  static std::shared_ptr<const Tokenizer> load(const std::string& path, Problems& problems);

  /// Token ids of `text`. Added tokens (special or not) in the text are matched first, as the
  /// reference library does, unless `match_added_tokens` is false (then they are plain text, as
  /// tiktoken's encode_ordinary). `text` must be valid UTF-8: check user text first with
  /// check_utf8 (base/utf8.h); invalid UTF-8 here is a caller's bug and throws BugError.
  std::vector<std::int32_t> encode(std::string_view text, EncodeCache& cache,
                                   bool match_added_tokens = true) const;
  /// As above with a fresh cache.
  std::vector<std::int32_t> encode(std::string_view text, bool match_added_tokens = true) const;

  /// `text` as the tokenizer's normalizer leaves it (NFC, or unchanged when it has none).
  std::string normalize(std::string_view text) const;

  /// The bytes of `ids` joined (added tokens as their text). Throws BugError for an id outside the
  /// vocabulary.
  std::string decode(const std::vector<std::int32_t>& ids) const;

  /// The bytes one token stands for. Throws BugError for an id outside the vocabulary.
  std::string_view token_bytes(std::int32_t id) const;
  /// The id of an added token by its text (e.g. "<|im_end|>"), or nullopt.
  std::optional<std::int32_t> added_token_id(std::string_view content) const;
  /// Whether `id` is an added token marked special.
  bool is_special(std::int32_t id) const;

  const std::string& path() const { return path_; }
  /// sha256 of the tokenizer.json bytes (recipes name their tokenizer by it).
  const std::string& sha256() const { return sha256_; }
  /// Ids in use: the vocabulary plus added tokens (the largest id + 1).
  std::size_t vocab_size() const { return tokens_.size(); }

  ~Tokenizer();

  /// The tables behind encode (text/tokenizer_impl.h, private to the text layer).
  struct Impl;

 private:
  friend class TokenizerLoader;
  Tokenizer();
  std::string path_;
  std::string sha256_;
  std::vector<std::string> tokens_;  // id -> bytes
  std::unique_ptr<Impl> impl_;
};

}  // namespace openrecipes
