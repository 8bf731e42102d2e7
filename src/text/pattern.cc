#include "text/pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>

#include <algorithm>

namespace openrecipes {
namespace {

// Generous for any sane pattern on a 1 MiB file; small enough to stop catastrophic backtracking
// fast.
constexpr uint32_t kMatchLimit = 1'000'000;
constexpr uint32_t kDepthLimit = 10'000;

using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
using MatchContext = std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)>;

// The limits, in one context per thread (a match only reads it).
pcre2_match_context* bounded_context() {
  thread_local MatchContext context = [] {
    MatchContext made(pcre2_match_context_create(nullptr), pcre2_match_context_free);
    pcre2_set_match_limit(made.get(), kMatchLimit);
    pcre2_set_depth_limit(made.get(), kDepthLimit);
    return made;
  }();
  return context.get();
}

// Room for the whole match's offsets, which is all a caller reads, reused by each thread.
MatchData& match_data() {
  thread_local MatchData data(pcre2_match_data_create(1, nullptr), pcre2_match_data_free);
  return data;
}

// One match of `code` in `text` from byte `from` under the match and depth limits: pcre2_match's
// return code, the offsets in `data`. Through the JIT code when there is some (it honours the
// match limit; its stack, 32 KiB by default, stands in for the depth limit), and again through
// the interpreter when the JIT stack runs out, so that a deep match is not given up for want of
// JIT stack. (JIT can answer some patterns the interpreter gives up on, ^(a*)*b$ among them.)
int bounded_match(const pcre2_code* code, bool jit, std::string_view text, std::size_t from,
                  uint32_t options, MatchData& data, pcre2_match_context* context) {
  auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  int rc = pcre2_match(code, subject, text.size(), from, options | (jit ? 0 : PCRE2_NO_JIT),
                       data.get(), context);
  if (jit && rc == PCRE2_ERROR_JIT_STACKLIMIT) {
    rc = pcre2_match(code, subject, text.size(), from, options | PCRE2_NO_JIT, data.get(), context);
  }
  return rc;
}

// The [begin, end) offsets of a match; with \K the start can lie after the end (a lookahead past
// it), which counts as empty.
std::pair<std::size_t, std::size_t> match_offsets(const MatchData& data) {
  const PCRE2_SIZE* offsets = pcre2_get_ovector_pointer(data.get());
  std::size_t begin = offsets[0], end = offsets[1] < begin ? begin : offsets[1];
  return {begin, end};
}

}  // namespace

std::optional<Pattern> Pattern::compile(const std::string& pattern, Problem where,
                                        Problems& problems) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* compiled = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                       PCRE2_UTF | PCRE2_UCP, &code, &offset, nullptr);
  if (!compiled) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(code, message, sizeof message);
    where.message = fmt::format("pattern /{}/ is not a valid regular expression at offset {}: {}",
                                pattern, offset, reinterpret_cast<const char*>(message));
    problems.push_back(std::move(where));
    return std::nullopt;
  }
  Pattern result;
  result.source_ = pattern;
  result.code_ = std::shared_ptr<pcre2_code>(compiled, pcre2_code_free);
  // Ten times faster matching where the platform has a JIT; the interpreter otherwise.
  result.jit_ = pcre2_jit_compile(compiled, PCRE2_JIT_COMPLETE) == 0;
  return result;
}

Pattern::Result Pattern::search(std::string_view text) const {
  int rc = bounded_match(code_.get(), jit_, text, 0, 0, match_data(), bounded_context());
  if (rc >= 0) return Result::kMatch;
  if (rc == PCRE2_ERROR_NOMATCH) return Result::kNoMatch;
  return Result::kTooComplex;
}

std::vector<std::pair<std::size_t, std::size_t>> Pattern::find_all(std::string_view text) const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  MatchData& data = match_data();
  pcre2_match_context* context = bounded_context();
  uint32_t options = 0;  // the first search checks the UTF-8; the rest may skip it
  for (std::size_t from = 0; from <= text.size();) {
    if (bounded_match(code_.get(), jit_, text, from, options, data, context) < 0) break;
    options = PCRE2_NO_UTF_CHECK;
    auto [begin, end] = match_offsets(data);
    if (end > begin) out.emplace_back(begin, end);
    std::size_t next = std::max(end, from + 1);
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    if (next > text.size()) break;
    from = next;
  }
  return out;
}

}  // namespace openrecipes
