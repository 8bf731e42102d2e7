// A shell script read the way bash reads it before running it: words, quoting, `\`-newline
// continuations, comments, simple commands and their separators, redirections, `export`, variable
// assignments and bash arrays (`NAME=(...)`, possibly over several lines), with the variables and
// arrays the text itself defines expanded where they are used. Nothing is run: a command
// substitution `$(...)`, an arithmetic expansion `$((...))` and a variable the text does not
// define stay as written, and the word is marked unevaluated. Text bash would reject or read
// otherwise than it looks (an unterminated quote or array, a broken `\`-newline continuation) is
// reported as a warning with its line.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openrecipes {

/// One word of a command after quote removal and expansion.
struct ShellWord {
  std::string text;  ///< the word as the program would receive it
  int line =
      1;  ///< 1-based line of the text where it is written (an array element: its definition)
  std::string opaque_array;  ///< set for `${NAME[@]}` of an array the text does not define: NAME
                             ///< (text keeps `${NAME[@]}`)
  bool unevaluated = false;  ///< holds an expansion kept as written (`$(...)`, `$((...))`, `` `...`
                             ///< ``, an undefined `$NAME`, an unsupported `${...}` form)
};

/// A variable the script exports: `export NAME=value`, or `NAME=value` and `export NAME`.
struct ShellExport {
  std::string name;
  std::string value;
  int line = 1;
};

/// One simple command: the `NAME=value` words before the program, then the program and its words.
struct ShellCommand {
  std::vector<std::pair<std::string, std::string>> assignments;  ///< the command's own environment
  std::vector<ShellWord> words;                                  ///< program first
  int line = 1;                                                  ///< line of the first word
  std::map<std::string, ShellExport> environment;  ///< exported variables in effect when it runs
};

/// Text bash would reject, or read otherwise than it looks.
struct ShellWarning {
  int line = 1;  ///< 1-based line where the construct starts
  std::string message;
};

/// What the script does, in order.
struct ShellScript {
  std::vector<ShellCommand>
      commands;  ///< every simple command but `export`, `unset` and bare assignments
  std::vector<ShellExport> exports;  ///< in order; a later one of a name overrides an earlier one
  std::map<std::string, std::string> variables;          ///< shell variables at the end of the text
  std::map<std::string, std::vector<ShellWord>> arrays;  ///< arrays at the end of the text
  std::vector<ShellWarning> warnings;                    ///< malformed text, in order of line
};

/// Reads `text` as a bash script. Words split on unquoted blanks; `'...'` is literal; `"..."`
/// expands variables; `\` escapes one character and `\`-newline joins lines; `#` at the start of a
/// word comments out the rest of the line; newline, `;`, `&`, `|`, `&&`, `||`, `(` and `)` end a
/// command. `$NAME`, `${NAME}`, `${NAME[@]}`, `${NAME[*]}`, `${NAME[N]}` and the slice
/// `${NAME[@]:OFFSET[:LENGTH]}` expand when the text has defined NAME before (unquoted expansions
/// split into words as bash does); `${NAME:-default}`, `${NAME-default}`, `${NAME:+alt}` and
/// `${NAME+alt}` expand by bash's rules (an undefined NAME is unset); `$'...'` decodes its escapes.
/// Otherwise expansions stay as written and mark the word unevaluated, and an undefined
/// `${NAME[@]}` alone in a word is marked opaque. Redirections (`> file`, `2>&1`, here-documents)
/// are dropped. A `<...>` placeholder (`<slime entry module>`) is kept as one word. Never fails:
/// syntax it does not know stays words; malformed text (an unterminated quote, `$(`, `${` or
/// array, a `\` followed by blanks at the end of a line, a comment ending in `\`, a command that
/// starts with a `--flag`) adds a warning.
ShellScript read_shell_script(std::string_view text);

}  // namespace openrecipes
