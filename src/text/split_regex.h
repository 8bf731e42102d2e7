// The regular expressions of a tokenizer's pre-tokenizer and added-token matcher, through PCRE2
// (UTF + UCP, JIT): a Split step's pattern, GPT-2's ByteLevel pattern, the alternation of added
// tokens. Private to the text layer (text/tokenizer*.cc).
#pragma once

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>

#include <memory>
#include <string>
#include <string_view>

#include "base/input_error.h"
#include "base/problem.h"

namespace openrecipes {

/// A compiled PCRE2 pattern with JIT, for repeated searches over valid UTF-8 text.
class SplitRegex {
 public:
  /// Compiles `pattern` (UTF + UCP; the text it searches is checked as UTF-8 beforehand) and
  /// JIT-compiles it where PCRE2 can. `shown` is the pattern as its file spells it (before
  /// with_unicode_whitespace), for messages. Returns nullptr and appends `where` (file, field,
  /// rule) with the compile error as its message when the pattern is invalid; else keeps `where`
  /// to name the pattern when a match gives up (for_each_match).
  static std::unique_ptr<SplitRegex> compile(const std::string& pattern, const std::string& shown,
                                             Problem where, Problems& problems);
  ~SplitRegex() { pcre2_code_free(code_); }
  SplitRegex(const SplitRegex&) = delete;
  SplitRegex& operator=(const SplitRegex&) = delete;

  /// Calls on_match(begin, end) (byte offsets) for each match of `text` in order. `text` must be
  /// valid UTF-8. A match that PCRE2 gives up on (its match limit, depth limit or JIT stack
  /// limit: a pathological pattern such as `(a+)+$`) throws InputError naming the pattern's file
  /// and field (too_complex).
  template <typename OnMatch>
  void for_each_match(std::string_view text, OnMatch on_match) const {
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_, nullptr);
    std::size_t at = 0;
    while (at <= text.size()) {
      // pcre2_jit_match skips the interpreter's checks: the text was validated as UTF-8 already.
      int rc = jit_ ? pcre2_jit_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(),
                                      at, PCRE2_NO_UTF_CHECK, data, context())
                    : pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), at,
                                  PCRE2_NO_UTF_CHECK, data, context());
      if (rc == PCRE2_ERROR_NOMATCH) break;
      if (rc < 0) {
        pcre2_match_data_free(data);
        throw InputError(too_complex(rc, at));
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
  SplitRegex() = default;
  // The problem of a match that PCRE2 stopped with error `rc` at byte `at` of the text.
  Problem too_complex(int rc, std::size_t at) const;
  Problem origin_;     // file, field and rule of the pattern, from compile
  std::string shown_;  // the pattern as its file spells it
  // A JIT stack big enough for long runs of whitespace or letters, one per thread.
  static pcre2_match_context* context();
  pcre2_code* code_ = nullptr;
  bool jit_ = false;
};

// Unicode's White_Space property, which \s means in the reference regex engines (Rust's regex and

/// `pattern` with \s and \S spelled out as Unicode White_Space classes, which \s means in the
/// reference regex engines (Rust's regex and fancy-regex, Oniguruma); PCRE2's \s also takes
/// U+180E, which left White_Space in Unicode 6.3.
std::string with_unicode_whitespace(const std::string& pattern);

/// `literal` quoted for PCRE2 (\Q...\E, with any \E inside it escaped).
std::string escape_for_regex(std::string_view literal);

}  // namespace openrecipes
