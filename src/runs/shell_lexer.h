// The first half of the shell reader (shell_reader.h): bash's text split into words and command
// ends (shell_lexer.cc), each word kept as its pieces (literal text, variable and array
// expansions; the syntax inside a word is shell_expansion.cc's) so that the interpreter can expand
// them later, in order, with the variables defined by then. Internal to the runs layer; callers
// use read_shell_script.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runs/shell_reader.h"

namespace openrecipes::shell {

/// One piece of a word as written: literal text, or an expansion of a variable or array.
struct Segment {
  enum class Kind { kText, kVariable, kArrayAll, kArrayJoined, kArrayElement, kDefault };
  Kind kind = Kind::kText;
  std::string text;       ///< kText: the text; otherwise the variable's name
  std::size_t index = 0;  ///< kArrayElement; kArrayAll and kArrayJoined: the slice's offset
  bool quoted = false;    ///< written inside quotes or escaped: never split into words
  std::string source;     ///< the expansion as written, kept when the text does not define the name
  std::optional<std::size_t> length;  ///< kArrayAll and kArrayJoined: the slice's length
  std::string op;                     ///< kDefault: `:-`, `-`, `:+`, `+`, `:=` or `=`
  std::string word;                   ///< kDefault: the word after the operator, as written
};

/// A segment of `kind` with its text, quoting and source; the other fields defaulted.
Segment make_segment(Segment::Kind kind, std::string text, bool quoted, std::string source);

/// One word before expansion.
struct RawWord {
  std::vector<Segment> segments;
  bool has_quotes = false;   ///< `""` is an empty word; nothing at all is no word
  bool unevaluated = false;  ///< holds text bash would expand that is kept as written
  int line = 1;              ///< 1-based line where the word starts
};

/// A word, the end of a simple command, or the bounds of an array's elements (`NAME=(` ... `)`).
struct Token {
  enum class Kind { kWord, kEnd, kArrayOpen, kArrayClose };
  Kind kind = Kind::kWord;
  RawWord word;         ///< kWord
  std::string name;     ///< kArrayOpen
  bool append = false;  ///< kArrayOpen: `NAME+=(`
  int line = 1;
};

/// Whether `c` may start, or continue, a shell name (`[A-Za-z_][A-Za-z0-9_]*`).
bool is_name_start(char c);
bool is_name_char(char c);
/// Whether `text` is a shell name.
bool is_name(std::string_view text);

/// The value of an ANSI-C quoted string `$'...'` (without its quotes), decoded as bash's manual
/// describes ("ANSI-C Quoting"): `\a \b \e \E \f \n \r \t \v \\ \' \" \?`, `\xHH` (one or two hex
/// digits) and `\NNN` (one to three octal digits); any other escape stays as written.
std::string decode_ansi_c(std::string_view text);

/// What `${inner}`, written as `source`, stands for: a segment (a variable, `${NAME:-word}` and
/// the other forms with a word, `${NAME[N]}`, `${NAME[@]}`, `${NAME[*]}`, and the slices
/// `${NAME[@]:OFFSET[:LENGTH]}`), or none when it is kept as written; `unevaluated` when the kept
/// text is an expansion bash would do (`${#NAME}`, `${NAME/a/b}`, a slice of one element).
struct BracedExpansion {
  std::optional<Segment> segment;
  bool unevaluated = false;
};
BracedExpansion parse_braced(const std::string& inner, const std::string& source, bool quoted);

/// Splits `text` into tokens as bash reads it (see read_shell_script for the constructs), adding
/// a warning with its 1-based line for each construct bash would reject or read otherwise than it
/// looks. Never fails. The last token is a kEnd.
std::vector<Token> lex(std::string_view text, std::vector<ShellWarning>& warnings);

}  // namespace openrecipes::shell
