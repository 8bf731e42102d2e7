// The syntax inside one shell word (shell_lexer.h): names, `$'...'` escapes and the forms of
// `${...}`, as bash's manual describes them ("Shell Parameter Expansion", "ANSI-C Quoting").
#include <cctype>
#include <utility>

#include "runs/shell_lexer.h"

namespace openrecipes::shell {
namespace {

// `\xHH` and `\NNN`: up to `most` digits of `base` after `text[i]`, `i` moved past them. The
// value and how many digits were read.
std::pair<unsigned, std::size_t> read_digits(std::string_view text, std::size_t& i,
                                             std::size_t most, int base) {
  unsigned value = 0;
  std::size_t n = 0;
  while (n < most && i + 1 < text.size()) {
    char d = text[i + 1];
    int v = std::isdigit(static_cast<unsigned char>(d)) ? d - '0'
            : base == 16 && std::isxdigit(static_cast<unsigned char>(d))
                ? std::tolower(static_cast<unsigned char>(d)) - 'a' + 10
                : -1;
    if (v < 0 || v >= base) break;
    value = value * static_cast<unsigned>(base) + static_cast<unsigned>(v);
    ++i;
    ++n;
  }
  return {value, n};
}

// The character a one-letter escape stands for (`n`: newline), or nullopt.
std::optional<char> simple_escape(char c) {
  switch (c) {
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'e':
    case 'E':
      return '\x1B';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'v':
      return '\v';
    case '\\':
    case '\'':
    case '"':
    case '?':
      return c;
    default:
      return std::nullopt;
  }
}

// `OFFSET` or `OFFSET:LENGTH` of a slice, both plain non-negative numbers.
std::optional<std::pair<std::size_t, std::optional<std::size_t>>> parse_slice(
    const std::string& text) {
  auto number = [](const std::string& digits) -> std::optional<std::size_t> {
    if (digits.empty() || digits.size() > 8 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return std::stoul(digits);
  };
  std::size_t colon = text.find(':');
  std::optional<std::size_t> offset = number(text.substr(0, colon));
  if (!offset) return std::nullopt;
  if (colon == std::string::npos) return std::pair{*offset, std::optional<std::size_t>()};
  std::optional<std::size_t> length = number(text.substr(colon + 1));
  if (!length) return std::nullopt;
  return std::pair{*offset, length};
}

// `NAME:-word`, `NAME-word`, `NAME:+word`, `NAME+word`, `NAME:=word`, `NAME=word`: fills
// `segment` and returns true, else false.
bool read_default(Segment& segment, const std::string& inner) {
  std::size_t name_end = 0;
  while (name_end < inner.size() && is_name_char(inner[name_end])) ++name_end;
  if (name_end == 0 || !is_name_start(inner[0]) || name_end >= inner.size()) return false;
  for (const char* op : {":-", ":+", ":=", "-", "+", "="}) {
    if (inner.compare(name_end, std::string_view(op).size(), op) != 0) continue;
    segment.kind = Segment::Kind::kDefault;
    segment.text = inner.substr(0, name_end);
    segment.op = op;
    segment.word = inner.substr(name_end + segment.op.size());
    return true;
  }
  return false;
}

// `NAME[@]`, `NAME[*]`, `NAME[N]` and the slices `NAME[@]:OFFSET[:LENGTH]`: fills `segment` and
// returns true; false for an index it does not expand (kept as written, evaluated), or a slice
// of one element (kept and marked unevaluated); nullopt when `inner` is no array form.
std::optional<bool> read_array_expansion(Segment& segment, std::string inner, bool& unevaluated) {
  std::size_t bracket = inner.find('[');
  std::optional<std::pair<std::size_t, std::optional<std::size_t>>> slice;
  if (std::size_t at = inner.find("]:");
      at != std::string::npos && bracket != std::string::npos && at > bracket) {
    slice = parse_slice(inner.substr(at + 2));
    if (slice) inner = inner.substr(0, at + 1);
  }
  if (bracket == std::string::npos || inner.back() != ']' || !is_name(inner.substr(0, bracket))) {
    return std::nullopt;
  }
  std::string index = inner.substr(bracket + 1, inner.size() - bracket - 2);
  if (slice && index != "@" && index != "*") {
    unevaluated = true;
    return false;
  }
  if (slice) {
    segment.index = slice->first;
    segment.length = slice->second;
  }
  segment.text = inner.substr(0, bracket);
  if (index == "@") {
    segment.kind = Segment::Kind::kArrayAll;
  } else if (index == "*") {
    segment.kind = Segment::Kind::kArrayJoined;
  } else if (!index.empty() && index.size() < 9 &&
             index.find_first_not_of("0123456789") == std::string::npos) {
    segment.kind = Segment::Kind::kArrayElement;
    segment.index = std::stoul(index);
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_name(std::string_view text) {
  if (text.empty() || !is_name_start(text[0])) return false;
  for (char c : text) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

Segment make_segment(Segment::Kind kind, std::string text, bool quoted, std::string source) {
  Segment segment;
  segment.kind = kind;
  segment.text = std::move(text);
  segment.quoted = quoted;
  segment.source = std::move(source);
  return segment;
}

std::string decode_ansi_c(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char c = text[++i];
    if (std::optional<char> escaped = simple_escape(c)) {
      out += *escaped;
    } else if (c == 'x') {
      auto [value, n] = read_digits(text, i, 2, 16);
      out += n ? std::string(1, static_cast<char>(value)) : "\\x";
    } else if (c >= '0' && c <= '7') {
      --i;
      out += static_cast<char>(read_digits(text, i, 3, 8).first & 0xFF);
    } else {
      out += '\\';
      out += c;
    }
  }
  return out;
}

BracedExpansion parse_braced(const std::string& inner, const std::string& source, bool quoted) {
  BracedExpansion out;
  Segment segment = make_segment(Segment::Kind::kVariable, inner, quoted, source);
  if (is_name(inner) || read_default(segment, inner)) {
    out.segment = std::move(segment);
    return out;
  }
  std::optional<bool> array = read_array_expansion(segment, inner, out.unevaluated);
  if (array && *array) {
    out.segment = std::move(segment);
  } else if (!array) {
    out.unevaluated = true;  // ${#NAME}, ${NAME/a/b} and the like: not expanded
  }
  return out;
}

}  // namespace openrecipes::shell
