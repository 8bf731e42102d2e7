#include "text/pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>

namespace openrecipes {
namespace {

// Generous for any sane pattern on a 1 MiB file; small enough to stop catastrophic backtracking
// fast.
constexpr uint32_t kMatchLimit = 1'000'000;
constexpr uint32_t kDepthLimit = 10'000;

using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;

// One match of `code` in `text` from byte `from` under the match and depth limits: pcre2_match's
// return code, the offsets in `data`.
int bounded_match(const pcre2_code* code, std::string_view text, std::size_t from,
                  MatchData& data) {
  std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)> context(
      pcre2_match_context_create(nullptr), pcre2_match_context_free);
  pcre2_set_match_limit(context.get(), kMatchLimit);
  pcre2_set_depth_limit(context.get(), kDepthLimit);
  return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), from, 0,
                     data.get(), context.get());
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
  return result;
}

Pattern::Result Pattern::search(std::string_view text) const {
  MatchData data(pcre2_match_data_create_from_pattern(code_.get(), nullptr), pcre2_match_data_free);
  int rc = bounded_match(code_.get(), text, 0, data);
  if (rc >= 0) return Result::kMatch;
  if (rc == PCRE2_ERROR_NOMATCH) return Result::kNoMatch;
  return Result::kTooComplex;
}

std::optional<std::pair<std::size_t, std::size_t>> Pattern::find(std::string_view text,
                                                                 std::size_t from) const {
  if (from > text.size()) return std::nullopt;
  MatchData data(pcre2_match_data_create_from_pattern(code_.get(), nullptr), pcre2_match_data_free);
  int rc = bounded_match(code_.get(), text, from, data);
  if (rc < 0) return std::nullopt;
  const PCRE2_SIZE* offsets = pcre2_get_ovector_pointer(data.get());
  // With \K the start can lie after the end (a lookahead past it); treat that as empty.
  std::size_t begin = offsets[0], end = offsets[1] < begin ? begin : offsets[1];
  return std::make_pair(begin, end);
}

}  // namespace openrecipes
