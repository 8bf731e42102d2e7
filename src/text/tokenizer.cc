#include "text/tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pcre2.h>
#include <utf8proc.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "base/utf8.h"
#include "base/yaml_document.h"
#include "text/byte_level.h"
#include "text/sha256.h"
#include "text/tokenizer_json.h"

namespace openrecipes {
namespace {

// GPT-2's pre-tokenizer pattern, used by a ByteLevel pre-tokenizer with use_regex: true
// (huggingface/tokenizers pre_tokenizers/byte_level.rs).
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// A fast hash for the short byte strings pieces are: 8 bytes at a time, then a 64-bit finalizer
// (splitmix64's). Quality is ample for open addressing; std::hash's murmur costs more per piece.
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

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

using TokenIds = std::vector<std::int32_t>;

// A compiled PCRE2 pattern with JIT, for repeated searches.
class Regex {
 public:
  Regex(const std::string& pattern, const std::string& where) {
    int code = 0;
    PCRE2_SIZE offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                          PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &code, &offset, nullptr);
    if (!code_) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(code, message, sizeof message);
      throw TokenizerError(fmt::format("{}: the regex does not compile at offset {}: {}", where, offset,
                                       reinterpret_cast<const char*>(message)));
    }
    jit_ = pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE) == 0;  // else the interpreter
  }
  ~Regex() { pcre2_code_free(code_); }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Calls on_match(begin, end) for each match of `text` in order, from `start`.
  template <typename OnMatch>
  void for_each_match(std::string_view text, OnMatch on_match) const {
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_, nullptr);
    std::size_t at = 0;
    while (at <= text.size()) {
      // pcre2_jit_match skips the interpreter's checks: the text was validated as UTF-8 already.
      int rc = jit_ ? pcre2_jit_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), at,
                                      PCRE2_NO_UTF_CHECK, data, context())
                    : pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), at,
                                  PCRE2_NO_UTF_CHECK, data, context());
      if (rc == PCRE2_ERROR_NOMATCH) break;
      if (rc < 0) {
        pcre2_match_data_free(data);
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(rc, message, sizeof message);
        throw TokenizerError(fmt::format("the pre-tokenizer regex failed at byte {}: {}", at,
                                         reinterpret_cast<const char*>(message)));
      }
      PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
      std::size_t begin = ovector[0], end = ovector[1];
      if (end == begin) {  // an empty match: step one character
        if (begin >= text.size()) break;
        at = begin + 1;
        while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
        continue;
      }
      on_match(begin, end);
      at = end;
    }
    pcre2_match_data_free(data);
  }

 private:
  // A JIT stack big enough for long runs of whitespace or letters, one per thread.
  static pcre2_match_context* context() {
    thread_local struct Holder {
      pcre2_jit_stack* stack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
      pcre2_match_context* context = [this] {
        pcre2_match_context* c = pcre2_match_context_create(nullptr);
        pcre2_jit_stack_assign(c, nullptr, stack);
        return c;
      }();
      ~Holder() {
        pcre2_match_context_free(context);
        pcre2_jit_stack_free(stack);
      }
    } holder;
    return holder.context;
  }
  pcre2_code* code_ = nullptr;
  bool jit_ = false;
};

// Unicode's White_Space property, which \s means in the reference regex engines (Rust's regex and
// fancy-regex, Oniguruma). PCRE2's \s also takes U+180E, which left White_Space in Unicode 6.3.
constexpr const char* kWhiteSpace =
    "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";

// `pattern` with \s and \S spelled out as White_Space classes.
std::string with_unicode_whitespace(const std::string& pattern) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      char next = pattern[++i];
      if (next == 's') {
        out += in_class ? std::string(kWhiteSpace) : "[" + std::string(kWhiteSpace) + "]";
      } else if (next == 'S' && !in_class) {
        out += "[^" + std::string(kWhiteSpace) + "]";
      } else {
        out += c;
        out += next;
      }
      continue;
    }
    if (c == '[' && !in_class) {
      in_class = true;
      out += c;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];  // a literal ]
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    out += c;
  }
  return out;
}

// NFC with an explicit length: utf8proc_NFC stops at a NUL byte, which text may hold.
std::string nfc_normalize(std::string_view text) {
  utf8proc_uint8_t* result = nullptr;
  utf8proc_ssize_t length = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                         static_cast<utf8proc_ssize_t>(text.size()), &result,
                                         static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (length < 0) return std::string(text);
  std::string out(reinterpret_cast<char*>(result), static_cast<std::size_t>(length));
  std::free(result);
  return out;
}

std::string escape_for_regex(std::string_view literal) {
  std::string out = "\\Q";
  for (std::size_t i = 0; i < literal.size(); ++i) {
    if (literal.compare(i, 2, "\\E") == 0) {
      out += "\\E\\\\E\\Q";
      ++i;
    } else {
      out += literal[i];
    }
  }
  return out + "\\E";
}

struct AddedToken {
  std::string content;
  std::int32_t id = 0;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
};

// The largest tokenizer.json read (o200k's is 28 MB); devices and endless files are refused.
constexpr std::size_t kMaxTokenizerBytes = std::size_t{1} << 30;

std::string read_file(const std::string& path) {
  Problems problems;
  std::optional<std::string> bytes = read_text_file(path, kMaxTokenizerBytes, problems);
  if (!bytes) throw TokenizerError(fmt::format("{}: {}", path, problems.front().message));
  return std::move(*bytes);
}

}  // namespace

InvalidUtf8Error::InvalidUtf8Error(std::size_t offset)
    : std::runtime_error(fmt::format("the text is not valid UTF-8 at byte offset {}", offset)),
      byte_offset(offset) {}

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
  void insert(std::string_view piece, std::uint64_t hash, const std::int32_t* first, std::size_t count) {
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

struct Tokenizer::Impl {
  bool nfc = false;
  bool ignore_merges = false;
  std::vector<std::unique_ptr<Regex>> splits;  // applied in order (Isolated behaviour)
  std::unique_ptr<Regex> added_pattern;        // alternation of every added token
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
        if (slot.hash == hash && (*tokens)[static_cast<std::size_t>(slot.id)] == bytes) return slot.id;
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
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  }

  // BPE over one piece's bytes (huggingface/tokenizers Word::merge_all): repeatedly merge the
  // adjacent pair of lowest rank, leftmost first.
  void bpe(std::string_view piece, TokenIds& out) const {
    if (ignore_merges) {
      if (std::optional<std::int32_t> whole = ids_by_bytes.find(piece)) {
        out.push_back(*whole);
        return;
      }
    }
    const int n = static_cast<int>(piece.size());
    if (n <= kSmallPiece) {
      bpe_small(piece, out);
      return;
    }
    std::vector<std::int32_t> id(static_cast<std::size_t>(n));
    std::vector<int> next(static_cast<std::size_t>(n)), prev(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      id[static_cast<std::size_t>(i)] = byte_ids[static_cast<unsigned char>(piece[static_cast<std::size_t>(i)])];
      next[static_cast<std::size_t>(i)] = i + 1 < n ? i + 1 : -1;
      prev[static_cast<std::size_t>(i)] = i - 1;
    }
    using Candidate = std::tuple<std::int32_t, int, std::int32_t, std::int32_t>;  // rank, pos, left, right
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    auto consider = [&](int pos) {
      if (pos < 0) return;
      int right = next[static_cast<std::size_t>(pos)];
      if (right < 0) return;
      const Merge* merge = merges.find(key(id[static_cast<std::size_t>(pos)], id[static_cast<std::size_t>(right)]));
      if (merge) {
        queue.emplace(merge->rank, pos, id[static_cast<std::size_t>(pos)], id[static_cast<std::size_t>(right)]);
      }
    };
    for (int i = 0; i + 1 < n; ++i) consider(i);
    std::vector<bool> gone(static_cast<std::size_t>(n), false);
    while (!queue.empty()) {
      auto [rank, pos, left, right_id] = queue.top();
      queue.pop();
      std::size_t p = static_cast<std::size_t>(pos);
      int right = next[p];
      if (gone[p] || right < 0 || id[p] != left || id[static_cast<std::size_t>(right)] != right_id) continue;
      id[p] = merges.find(key(left, right_id))->merged;
      gone[static_cast<std::size_t>(right)] = true;
      next[p] = next[static_cast<std::size_t>(right)];
      if (next[p] >= 0) prev[static_cast<std::size_t>(next[p])] = pos;
      consider(prev[p]);
      consider(pos);
    }
    for (int i = 0; i >= 0; i = next[static_cast<std::size_t>(i)]) out.push_back(id[static_cast<std::size_t>(i)]);
  }

  // Most pieces are short: the same merge order with a linear scan over arrays on the stack,
  // no allocation (the priority queue pays off only for long pieces).
  static constexpr int kSmallPiece = 48;
  void bpe_small(std::string_view piece, TokenIds& out) const {
    std::int32_t id[kSmallPiece];
    std::int32_t rank[kSmallPiece];    // rank of the pair (i, i+1); INT32_MAX when none
    std::int32_t merged[kSmallPiece];  // the id that pair merges into
    int n = static_cast<int>(piece.size());
    for (int i = 0; i < n; ++i) id[i] = byte_ids[static_cast<unsigned char>(piece[static_cast<std::size_t>(i)])];
    auto score = [&](int i) {
      const Merge* merge = merges.find(key(id[i], id[i + 1]));
      rank[i] = merge ? merge->rank : INT32_MAX;
      merged[i] = merge ? merge->merged : 0;
    };
    for (int i = 0; i + 1 < n; ++i) score(i);
    while (n > 1) {
      int best = -1;
      std::int32_t best_rank = INT32_MAX;
      for (int i = 0; i + 1 < n; ++i) {
        if (rank[i] < best_rank) {  // strict: the leftmost of equal ranks wins
          best_rank = rank[i];
          best = i;
        }
      }
      if (best < 0) break;
      id[best] = merged[best];
      for (int i = best + 1; i + 1 < n; ++i) {
        id[i] = id[i + 1];
        rank[i] = rank[i + 1];
        merged[i] = merged[i + 1];
      }
      --n;
      if (best > 0) score(best - 1);
      if (best + 1 < n) score(best);
    }
    out.insert(out.end(), id, id + n);
  }

  void encode_piece(std::string_view piece, EncodeCache& cache, TokenIds& out) const {
    if (piece.size() > 4096) {  // very long pieces rarely repeat; whitespace runs of code do, so 4 KiB
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
  void encode_text(std::string_view text, EncodeCache& cache, TokenIds& out) const {
    std::string normalized;
    if (nfc && !text.empty()) {
      normalized = nfc_normalize(text);
      text = normalized;
    }
    split(text, 0, cache, out);
  }

  void split(std::string_view text, std::size_t level, EncodeCache& cache, TokenIds& out) const {
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
};

Tokenizer::Tokenizer() : impl_(std::make_unique<Impl>()) {}
Tokenizer::~Tokenizer() = default;

std::shared_ptr<const Tokenizer> Tokenizer::load(const std::string& path) {
  try {
    return load_checked(path);
  } catch (const nlohmann::json::exception& error) {
    // A field of the wrong type somewhere the loader reads a value.
    throw TokenizerError(fmt::format("{}: a field has the wrong type or is missing: {}", path, error.what()));
  }
}

std::shared_ptr<const Tokenizer> Tokenizer::load_checked(const std::string& path) {
  std::string bytes = read_file(path);
  auto fail = [&](const std::string& field, const std::string& message) {
    return TokenizerError(fmt::format("{}: {}: {}", path, field, message));
  };
  TokenizerJson parsed;
  try {
    parsed = parse_tokenizer_json(bytes);
  } catch (const std::exception& error) {
    throw fail("(file)", error.what());
  }
  const nlohmann::json& json = parsed.rest;
  if (!json.is_object() || !json.contains("model") || !json.at("model").is_object()) {
    throw fail("model", "missing; expected a BPE model");
  }
  std::shared_ptr<Tokenizer> tokenizer(new Tokenizer());
  Tokenizer& t = *tokenizer;
  Impl& impl = *t.impl_;
  t.path_ = path;
  t.sha256_ = sha256_hex(bytes);
  bytes.clear();
  bytes.shrink_to_fit();

  // Normalizer: none or NFC.
  const nlohmann::json normalizer = json.value("normalizer", nlohmann::json());
  if (normalizer.is_object()) {
    std::string type = normalizer.value("type", "");
    if (type != "NFC") throw fail("normalizer.type", fmt::format("unsupported normalizer '{}' (supported: none, NFC)", type));
    impl.nfc = true;
  } else if (!normalizer.is_null()) {
    throw fail("normalizer", "expected null or an object");
  }

  // Pre-tokenizer: Split(regex, Isolated)... then ByteLevel without its own regex, or a lone
  // ByteLevel with GPT-2's regex.
  const nlohmann::json pre = json.value("pre_tokenizer", nlohmann::json());
  std::vector<nlohmann::json> steps;
  if (pre.is_object() && pre.value("type", "") == "Sequence") {
    for (const auto& step : pre.value("pretokenizers", nlohmann::json::array())) steps.push_back(step);
  } else if (pre.is_object()) {
    steps.push_back(pre);
  } else {
    throw fail("pre_tokenizer", "missing; expected Split and ByteLevel");
  }
  bool byte_level = false;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const nlohmann::json& step = steps[i];
    std::string type = step.value("type", "");
    std::string where = fmt::format("pre_tokenizer[{}]", i);
    if (type == "Split") {
      if (step.value("behavior", "") != "Isolated") {
        throw fail(where + ".behavior", fmt::format("unsupported Split behavior '{}' (supported: Isolated)",
                                                    step.value("behavior", "")));
      }
      if (step.value("invert", false)) throw fail(where + ".invert", "unsupported: true");
      const nlohmann::json& pattern = step.at("pattern");
      std::string regex = pattern.contains("Regex") ? pattern.at("Regex").get<std::string>()
                                                    : escape_for_regex(pattern.value("String", ""));
      impl.splits.push_back(std::make_unique<Regex>(with_unicode_whitespace(regex), path + ": " + where + ".pattern"));
    } else if (type == "ByteLevel") {
      if (step.value("add_prefix_space", false)) throw fail(where + ".add_prefix_space", "unsupported: true");
      if (step.value("use_regex", true)) {
        impl.splits.push_back(std::make_unique<Regex>(with_unicode_whitespace(kGpt2Pattern), path + ": GPT-2 pattern"));
      }
      byte_level = true;
    } else {
      throw fail(where + ".type", fmt::format("unsupported pre-tokenizer '{}' (supported: Split, ByteLevel)", type));
    }
  }
  if (!byte_level) throw fail("pre_tokenizer", "no ByteLevel step; only byte-level BPE is supported");

  // Model: BPE without dropout, byte fallback or word affixes.
  const nlohmann::json& model = json.at("model");
  if (model.value("type", "") != "BPE") {
    throw fail("model.type", fmt::format("unsupported model '{}' (supported: BPE)", model.value("type", "")));
  }
  if (!model.value("dropout", nlohmann::json()).is_null()) throw fail("model.dropout", "unsupported");
  if (model.value("byte_fallback", false)) throw fail("model.byte_fallback", "unsupported: true");
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    nlohmann::json value = model.value(affix, nlohmann::json());
    if (!value.is_null() && value != "") throw fail(std::string("model.") + affix, "unsupported");
  }
  impl.ignore_merges = model.value("ignore_merges", false);

  // Vocabulary: byte-level text -> id.
  if (parsed.vocab.empty()) throw fail("model.vocab", "missing or empty");
  std::unordered_map<std::string_view, std::int32_t> ids_by_text;
  ids_by_text.reserve(parsed.vocab.size());
  std::int64_t largest = -1;
  for (const auto& [text, id] : parsed.vocab) largest = std::max(largest, id);
  const nlohmann::json added_tokens = json.value("added_tokens", nlohmann::json::array());
  if (!added_tokens.is_array()) throw fail("added_tokens", "expected a list");
  for (std::size_t i = 0; i < added_tokens.size(); ++i) {
    const nlohmann::json& token = added_tokens[i];
    std::string where = fmt::format("added_tokens[{}]", i);
    if (!token.is_object() || !token.contains("id") || !token.at("id").is_number_integer()) {
      throw fail(where + ".id", "expected an integer id");
    }
    if (!token.contains("content") || !token.at("content").is_string() || token.at("content").get<std::string>().empty()) {
      throw fail(where + ".content", "expected a non-empty string");
    }
    std::int64_t id = token.at("id").get<std::int64_t>();
    if (id < 0 || id >= (1 << 24)) throw fail(where + ".id", fmt::format("{} is outside 0..{}", id, (1 << 24) - 1));
    largest = std::max(largest, id);
  }
  if (largest >= (1 << 24)) throw fail("model.vocab", fmt::format("id {} is outside 0..{}", largest, (1 << 24) - 1));
  t.tokens_.assign(static_cast<std::size_t>(largest + 1), std::string());
  std::vector<std::int32_t> vocab_ids;
  vocab_ids.reserve(parsed.vocab.size());
  for (const auto& [text, id64] : parsed.vocab) {
    if (id64 < 0) throw fail("model.vocab", fmt::format("'{}' has a negative id", text));
    if (!t.tokens_[static_cast<std::size_t>(id64)].empty()) throw fail("model.vocab", fmt::format("id {} appears twice", id64));
    std::int32_t id = static_cast<std::int32_t>(id64);
    std::optional<std::string> raw = byte_level_decode(text);
    if (!raw) throw fail("model.vocab", fmt::format("entry '{}' is not in the byte-level alphabet", text));
    vocab_ids.push_back(id);
    t.tokens_[static_cast<std::size_t>(id)] = std::move(*raw);
    ids_by_text.emplace(text, id);
  }
  impl.ids_by_bytes.build(t.tokens_, vocab_ids);
  for (int b = 0; b < 256; ++b) {
    auto it = ids_by_text.find(byte_level_char(static_cast<std::uint8_t>(b)));
    if (it == ids_by_text.end()) throw fail("model.vocab", fmt::format("no token for byte 0x{:02X}", b));
    impl.byte_ids[static_cast<std::size_t>(b)] = it->second;
  }

  // Merges, in rank order.
  impl.merges.reserve(parsed.merges.size());
  std::int32_t rank = 0;
  std::string joined;
  for (const auto& [left, right] : parsed.merges) {
    joined.assign(left).append(right);
    auto l = ids_by_text.find(left), r = ids_by_text.find(right), m = ids_by_text.find(joined);
    if (l == ids_by_text.end() || r == ids_by_text.end() || m == ids_by_text.end()) {
      throw fail(fmt::format("model.merges[{}]", rank), fmt::format("'{} {}' names a token not in the vocabulary", left, right));
    }
    impl.merges.insert(Impl::key(l->second, r->second), Impl::Merge{rank, m->second});  // first rank wins
    ++rank;
  }

  // Added tokens, longest first so that a token never matches inside a longer one.
  impl.special.assign(t.tokens_.size(), false);
  for (const auto& token : added_tokens) {
    AddedToken added{token.at("content").get<std::string>(), token.at("id").get<std::int32_t>(),
                     token.value("special", false), token.value("lstrip", false), token.value("rstrip", false)};
    if (token.value("single_word", false)) {
      throw fail("added_tokens", fmt::format("'{}': single_word is unsupported", added.content));
    }
    if (impl.added_by_content.count(added.content) ||
        (!t.tokens_[static_cast<std::size_t>(added.id)].empty() && t.tokens_[static_cast<std::size_t>(added.id)] != added.content)) {
      throw fail("added_tokens", fmt::format("'{}' (id {}) clashes with another token", added.content, added.id));
    }
    t.tokens_[static_cast<std::size_t>(added.id)] = added.content;
    impl.special[static_cast<std::size_t>(added.id)] = added.special;
    impl.added_by_content.emplace(added.content, added.id);
    impl.added.push_back(std::move(added));
  }
  if (!impl.added.empty()) {
    std::vector<const AddedToken*> ordered;
    for (const AddedToken& a : impl.added) ordered.push_back(&a);
    std::sort(ordered.begin(), ordered.end(), [](const AddedToken* a, const AddedToken* b) {
      return a->content.size() != b->content.size() ? a->content.size() > b->content.size() : a->content < b->content;
    });
    std::string alternation;
    for (const AddedToken* a : ordered) {
      std::string piece = escape_for_regex(a->content);
      if (a->lstrip) piece = "\\s*" + piece;
      if (a->rstrip) piece += "\\s*";
      alternation += (alternation.empty() ? "" : "|") + piece;
    }
    impl.added_pattern = std::make_unique<Regex>(alternation, path + ": added_tokens");
  }
  return tokenizer;
}

std::vector<std::int32_t> Tokenizer::encode(std::string_view text, EncodeCache& cache,
                                            bool match_added_tokens) const {
  if (std::optional<std::size_t> bad = first_invalid_utf8(text)) throw InvalidUtf8Error(*bad);
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
    throw std::out_of_range(fmt::format("token id {} is outside the vocabulary (0..{})", id, tokens_.size() - 1));
  }
  return tokens_[static_cast<std::size_t>(id)];
}

std::optional<std::int32_t> Tokenizer::added_token_id(std::string_view content) const {
  auto it = impl_->added_by_content.find(content);
  if (it == impl_->added_by_content.end()) return std::nullopt;
  return it->second;
}

bool Tokenizer::is_special(std::int32_t id) const {
  return id >= 0 && static_cast<std::size_t>(id) < impl_->special.size() && impl_->special[static_cast<std::size_t>(id)];
}

}  // namespace openrecipes
