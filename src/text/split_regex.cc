#include "text/split_regex.h"

#include "text/unicode_classes.h"

namespace openrecipes {
namespace {

// Unicode's White_Space property, which \s means in the reference regex engines (Rust's regex and
// fancy-regex, Oniguruma). PCRE2's \s also takes U+180E, which left White_Space in Unicode 6.3.
constexpr const char* kWhiteSpace =
    "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}"
    "\\x{3000}";

}  // namespace

std::unique_ptr<SplitRegex> SplitRegex::compile(const std::string& pattern,
                                                const std::string& shown, Problem where,
                                                Problems& problems) {
  int code = 0;
  PCRE2_SIZE offset = 0;
  std::unique_ptr<SplitRegex> regex(new SplitRegex());
  // Unicode 16 classes in place of PCRE2's own Unicode 14 ones (text/unicode_classes.h).
  const std::string spelled = with_unicode16_classes(pattern);
  regex->code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(spelled.data()), spelled.size(),
                               PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &code, &offset, nullptr);
  if (!regex->code_) {
    // Named at its offset in the pattern as written, where that fails as well.
    int written_code = 0;
    PCRE2_SIZE written_offset = 0;
    if (pcre2_code* written =
            pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                          PCRE2_UTF | PCRE2_UCP, &written_code, &written_offset, nullptr))
      pcre2_code_free(written);
    else
      code = written_code, offset = written_offset;
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(code, message, sizeof message);
    where.message = fmt::format("the regex does not compile at offset {}: {}", offset,
                                reinterpret_cast<const char*>(message));
    if (where.found.empty()) where.found = fmt::format("/{}/", shown);
    problems.push_back(std::move(where));
    return nullptr;
  }
  regex->jit_ = pcre2_jit_compile(regex->code_, PCRE2_JIT_COMPLETE) == 0;  // else the interpreter
  regex->origin_ = std::move(where);
  regex->shown_ = shown;
  return regex;
}

Problem SplitRegex::too_complex(int rc, std::size_t at) const {
  PCRE2_UCHAR message[256];
  pcre2_get_error_message(rc, message, sizeof message);
  Problem problem = origin_;
  // PCRE2's words ("match limit exceeded", "JIT stack limit reached"): pcre2api(3), "Error
  // return values from pcre2_match()".
  problem.message =
      fmt::format("the pattern is too complex to match: PCRE2 {}, at byte {} of the text",
                  reinterpret_cast<const char*>(message), at);
  problem.expected = "a pattern PCRE2 can match within its limits";
  problem.found = fmt::format("/{}/", shown_);
  return problem;
}

pcre2_match_context* SplitRegex::context() {
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

}  // namespace openrecipes
