#include "text/unicode_classes.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace openrecipes {
namespace {

/// Code points first..last, inclusive.
struct CodePointRange {
  char32_t first;
  char32_t last;
};

/// One property of the generated tables: its names, its sorted, disjoint ranges, and the code
/// points added to it and removed from it since the baseline version (kBaselineVersion).
struct UnicodeProperty {
  const char* short_name;
  const char* long_name;
  std::span<const CodePointRange> ranges;
  std::span<const CodePointRange> added;
  std::span<const CodePointRange> removed;
};

// kUnicodeProperties, kUnicodeVersion and kBaselineVersion, from the build folder
// (src/text/CMakeLists.txt).
#include "unicode16_tables.inc"

constexpr char32_t kLastCodePoint = 0x10FFFF;
// UTF-16 surrogates: no UTF-8 text holds them and PCRE2's UTF mode refuses them in a class.
constexpr char32_t kFirstSurrogate = 0xD800, kLastSurrogate = 0xDFFF;

// A property name compared as PCRE2 and UAX #44 (UAX44-LM3) compare them: case, spaces, '-'
// and '_' ignored.
std::string loose(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

const UnicodeProperty* find_property(std::string_view name) {
  // Each property's two names, loosely, in kUnicodeProperties' order.
  static const std::vector<std::pair<std::string, std::string>> names = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const UnicodeProperty& property : kUnicodeProperties)
      out.emplace_back(loose(property.short_name), loose(property.long_name));
    return out;
  }();
  std::string wanted = loose(name == "L&" ? "LC" : name);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i].first == wanted || names[i].second == wanted) return &kUnicodeProperties[i];
  return nullptr;
}

using Ranges = std::vector<CodePointRange>;

// Whether PCRE2's own tables are the baseline's Unicode version, so that its \p{X} plus the
// code points added since is the Unicode 16 class (pcre2api: PCRE2_CONFIG_UNICODE_VERSION).
bool pcre2_has_baseline_tables() {
  static const bool same = [] {
    char version[32] = {};
    return pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, version) > 0 &&
           std::string_view(version) == kBaselineVersion;
  }();
  return same;
}

void add(Ranges& set, std::span<const CodePointRange> ranges, bool negated) {
  if (!negated) {
    set.insert(set.end(), ranges.begin(), ranges.end());
    return;
  }
  char32_t next = 0;  // the first code point not yet covered by the complement
  for (const CodePointRange& r : ranges) {
    if (r.first > next) set.push_back({next, r.first - 1});
    next = r.last + 1;
  }
  if (next <= kLastCodePoint) set.push_back({next, kLastCodePoint});
}

// `set` sorted, with overlapping and touching ranges merged.
Ranges merged(Ranges set) {
  std::sort(set.begin(), set.end(),
            [](const CodePointRange& a, const CodePointRange& b) { return a.first < b.first; });
  Ranges out;
  for (const CodePointRange& r : set) {
    if (!out.empty() && r.first <= out.back().last + 1)
      out.back().last = std::max(out.back().last, r.last);
    else
      out.push_back(r);
  }
  return out;
}

// `part` (a subset of `whole`) with the gaps between its ranges filled wherever `whole` holds the
// gap: the same class once joined to the rest of `whole`, in fewer ranges.
Ranges widened(Ranges part, Ranges whole) {
  Ranges out;
  whole = merged(std::move(whole));
  auto within = whole.begin();
  for (const CodePointRange& r : merged(std::move(part))) {
    while (within != whole.end() && within->last < r.first) ++within;
    if (!out.empty() && within != whole.end() && within->first <= out.back().first)
      out.back().last = r.last;  // the same range of `whole` holds both, and the gap between
    else
      out.push_back(r);
  }
  return out;
}

// `set` sorted and merged, without surrogates, as class items: \x{A} or \x{A}-\x{B}.
std::string class_items(const Ranges& set) {
  std::string out;
  auto item = [&out](char32_t first, char32_t last) {
    if (first > last) return;
    out += fmt::format("\\x{{{:X}}}", static_cast<unsigned>(first));
    if (last > first) out += fmt::format("-\\x{{{:X}}}", static_cast<unsigned>(last));
  };
  for (const CodePointRange& r : merged(set)) {
    if (r.last < kFirstSurrogate || r.first > kLastSurrogate) {
      item(r.first, r.last);
    } else {
      if (r.first < kFirstSurrogate) item(r.first, kFirstSurrogate - 1);
      if (r.last > kLastSurrogate) item(kLastSurrogate + 1, r.last);
    }
  }
  return out;
}

/// A class escape at the start of `rest` (just after its backslash): its property, whether it is
/// negated, and its length after the backslash. Null property when the tables do not cover it.
struct ClassEscape {
  const UnicodeProperty* property = nullptr;
  bool negated = false;
  std::size_t length = 0;
};

ClassEscape read_class_escape(std::string_view rest) {
  static const UnicodeProperty* const white_space = find_property("White_Space");
  static const UnicodeProperty* const decimal = find_property("Nd");
  ClassEscape escape;
  if (rest.empty()) return escape;
  char c = rest[0];
  if (c == 's' || c == 'S') return {white_space, c == 'S', 1};
  if (c == 'd' || c == 'D') return {decimal, c == 'D', 1};
  if (c != 'p' && c != 'P') return escape;
  escape.negated = c == 'P';
  if (rest.size() < 2) return escape;
  if (rest[1] != '{') {  // \pL: a one-letter name
    escape.property = find_property(rest.substr(1, 1));
    escape.length = 2;
    return escape;
  }
  std::size_t close = rest.find('}', 2);
  if (close == std::string_view::npos) return escape;
  std::string_view name = rest.substr(2, close - 2);
  if (!name.empty() && name[0] == '^') {
    escape.negated = !escape.negated;
    name.remove_prefix(1);
  }
  escape.property = find_property(name);
  escape.length = close + 1;
  return escape;
}

/// The class escapes of one character class, two ways: spelled out whole (`full`), and as
/// PCRE2's own \p{X} (`natives`) plus the code points they lack (`delta`), which PCRE2 matches
/// faster (its JIT tests a long list of ranges one by one). The second way holds where PCRE2's
/// tables are the baseline's and every item is a property that lost no code points since the
/// baseline, not negated (a negated class, [^...], negates the whole union and may use it).
struct ClassParts {
  Ranges full;
  std::string natives;
  Ranges delta;
  bool natives_hold = true;

  void add_item(const UnicodeProperty& property, bool negated) {
    add(full, property.ranges, negated);
    if (std::string_view(property.short_name) == "White_Space") {  // not a General_Category
      add(delta, property.ranges, negated);
    } else if (!negated && property.removed.empty()) {
      std::string_view name = property.short_name;
      natives += fmt::format("\\p{{{}}}", name == "LC" ? "L&" : name);
      add(delta, property.added, false);
    } else {
      natives_hold = false;
    }
  }

  // The class items, without the brackets.
  std::string items() && {
    if (natives_hold && pcre2_has_baseline_tables())
      return natives + class_items(widened(std::move(delta), std::move(full)));
    return class_items(full);
  }
};

// The length of a run kept as written at `at`: \Q...\E (to its \E or the end), a (?#...)
// comment, or (inside a class) a POSIX [:name:] item. 0 when none starts there.
std::size_t verbatim_length(std::string_view pattern, std::size_t at, bool in_class) {
  std::string_view rest = pattern.substr(at);
  auto through = [&rest](std::string_view end, std::size_t from) {
    std::size_t found = rest.find(end, from);
    return found == std::string_view::npos ? rest.size() : found + end.size();
  };
  if (rest.starts_with("\\Q")) return through("\\E", 2);
  if (!in_class && rest.starts_with("(?#")) return through(")", 3);
  if (in_class && rest.starts_with("[:")) {
    std::size_t end = rest.find(":]", 2);
    return end == std::string_view::npos ? 0 : end + 2;
  }
  return 0;
}

}  // namespace

std::string_view unicode_classes_version() { return kUnicodeVersion; }

std::optional<bool> unicode_property_has(std::string_view name, char32_t cp) {
  const UnicodeProperty* property = find_property(name);
  if (!property) return std::nullopt;
  auto after = std::upper_bound(property->ranges.begin(), property->ranges.end(), cp,
                                [](char32_t c, const CodePointRange& r) { return c < r.first; });
  return after != property->ranges.begin() && cp <= std::prev(after)->last;
}

std::string with_unicode16_classes(std::string_view pattern) {
  std::string out;
  // Inside a class: its opening ("[" or "[^"), the items kept as written, the spelled-out ranges.
  bool in_class = false;
  std::string class_open, class_rest;
  ClassParts class_parts;
  auto emit = [&](std::string_view text) { (in_class ? class_rest : out) += text; };

  for (std::size_t i = 0; i < pattern.size();) {
    if (std::size_t n = verbatim_length(pattern, i, in_class)) {
      emit(pattern.substr(i, n));
      i += n;
      continue;
    }
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      ClassEscape escape = read_class_escape(pattern.substr(i + 1));
      if (!escape.property) {  // kept: the backslash and the character it escapes
        emit(pattern.substr(i, 2));
        i += 2;
        continue;
      }
      i += 1 + escape.length;
      if (!in_class) {  // \P{X} is [^\p{X}]
        ClassParts parts;
        parts.add_item(*escape.property, false);
        out += (escape.negated ? "[^" : "[") + std::move(parts).items() + "]";
        continue;
      }
      class_parts.add_item(*escape.property, escape.negated);
      // A '-' after a class escape is a literal; moved away from it, it must say so.
      if (i + 1 < pattern.size() && pattern[i] == '-' && pattern[i + 1] != ']') {
        class_rest += "\\-";
        ++i;
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      class_open = "[";
      ++i;
      if (i < pattern.size() && pattern[i] == '^') {
        class_open += '^';
        ++i;
      }
      if (i < pattern.size() && pattern[i] == ']') {  // a literal ] first in the class
        class_rest = "\\]";
        ++i;
      }
      continue;
    }
    if (in_class && c == ']') {
      // The ranges first: a '-' the class starts with stays a literal after them.
      if (class_rest.starts_with('-')) class_rest.replace(0, 1, "\\-");
      out += class_open + std::move(class_parts).items() + class_rest + "]";
      in_class = false;
      class_open.clear();
      class_rest.clear();
      class_parts = ClassParts();
      ++i;
      continue;
    }
    emit(pattern.substr(i, 1));
    ++i;
  }
  if (in_class) out += class_open + class_rest;  // unterminated: pcre2_compile reports it
  return out;
}

}  // namespace openrecipes
