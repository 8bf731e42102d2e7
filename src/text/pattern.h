// Regular expressions for schema `pattern`s, through PCRE2: bounded in time and stack on any
// input (std::regex recurses once per character and overflows the stack on long strings).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/problem.h"

struct pcre2_real_code_8;

namespace openrecipes {

/// One compiled pattern (UTF mode). Search semantics, as JSON Schema's `pattern`: the pattern may
/// match anywhere unless it anchors itself with ^ and $.
class Pattern {
 public:
  /// Compiles `pattern`. When it is invalid, returns nullopt and appends `where` (the caller's
  /// file, position, field and rule) with its message set to "pattern /P/ is not a valid regular
  /// expression at offset N: why".
  static std::optional<Pattern> compile(const std::string& pattern, Problem where,
                                        Problems& problems);

  enum class Result { kMatch, kNoMatch, kTooComplex };

  /// Searches `text`. kTooComplex when PCRE2's match or depth limit stops it (a pathological
  /// pattern), so a search always ends quickly.
  Result search(std::string_view text) const;

  /// Every non-empty match in `text`, left to right, as [begin, end) byte offsets; each search
  /// starts at the previous match's end, or one code point past the previous search's start when
  /// that would not move (an empty match). Checks
  /// the text as UTF-8 once, not once per match (PCRE2 re-checks the whole subject on each call
  /// otherwise, which made a scan quadratic). Stops, keeping what it found, where a search hits
  /// PCRE2's match or depth limit.
  std::vector<std::pair<std::size_t, std::size_t>> find_all(std::string_view text) const;

  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::shared_ptr<pcre2_real_code_8> code_;
  bool jit_ = false;  ///< compiled to machine code (pcre2_jit_compile); else the interpreter
};

}  // namespace openrecipes
