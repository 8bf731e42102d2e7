#include "runs/shell_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "runs/shell_lexer.h"

namespace openrecipes {
namespace {

using shell::is_name;
using shell::RawWord;
using shell::Segment;
using shell::Token;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// One word expanded with the variables and arrays of `script` as they are now: bash's parameter
// expansion and, for unquoted expansions when `split`, word splitting on blanks.
class WordExpansion {
 public:
  WordExpansion(const ShellScript& script, const RawWord& word, bool split)
      : script_(script), word_(word), split_(split), fields_(1, Field{"", false, word.line}) {}

  std::vector<ShellWord> run() {
    if (word_.segments.size() == 1 && word_.segments[0].kind == Segment::Kind::kArrayAll &&
        !script_.arrays.count(word_.segments[0].text) &&
        !script_.variables.count(word_.segments[0].text)) {
      return {{word_.segments[0].source, word_.line, word_.segments[0].text, false}};
    }
    for (const Segment& segment : word_.segments) expand_segment(segment);
    std::vector<ShellWord> words;
    for (const Field& field : fields_) {
      if (field.real)
        words.push_back({field.text, field.line, "", field.unevaluated || word_.unevaluated});
    }
    if (words.empty() && word_.has_quotes) words.push_back({"", word_.line, "", word_.unevaluated});
    return words;
  }

 private:
  // One word of the result, being built.
  struct Field {
    std::string text;
    bool real = false;  // holds something, even an empty quoted string
    int line = 0;
    bool unevaluated = false;
  };
  using Array = std::map<std::string, std::vector<ShellWord>>::const_iterator;

  void expand_segment(const Segment& segment) {
    Array array = script_.arrays.find(segment.text);
    bool is_array = segment.kind != Segment::Kind::kText && array != script_.arrays.end();
    switch (segment.kind) {
      case Segment::Kind::kText:
        append(segment.text, 0);
        break;
      case Segment::Kind::kVariable:
        expand_variable(segment, is_array ? &array->second : nullptr);
        break;
      case Segment::Kind::kDefault:
        expand_default(segment, is_array ? &array->second : nullptr);
        break;
      case Segment::Kind::kArrayElement:
        expand_element(segment, is_array ? &array->second : nullptr);
        break;
      case Segment::Kind::kArrayJoined:
      case Segment::Kind::kArrayAll:
        expand_all(segment, is_array ? &array->second : nullptr);
        break;
    }
  }

  // `$NAME`, `${NAME}`: the variable, or an array's first element.
  void expand_variable(const Segment& segment, const std::vector<ShellWord>* array) {
    auto variable = script_.variables.find(segment.text);
    if (variable != script_.variables.end()) {
      add(variable->second, segment.quoted, 0);
    } else if (array) {  // $NAME of an array is its first element
      if (!array->empty()) add((*array)[0].text, segment.quoted, (*array)[0].line);
    } else {
      kept(segment);
    }
  }

  // `${NAME:-word}` and the other forms with a word, by bash's rules.
  void expand_default(const Segment& segment, const std::vector<ShellWord>* array) {
    std::optional<std::string> value;
    if (auto variable = script_.variables.find(segment.text); variable != script_.variables.end()) {
      value = variable->second;
    } else if (array) {
      value = array->empty() ? "" : (*array)[0].text;
    }
    bool colon = segment.op[0] == ':';
    bool set = value && (!colon || !value->empty());
    char op = segment.op.back();
    bool use_word = op == '+' ? set : !set;
    if (!use_word) {
      if (op != '+') add(*value, segment.quoted, 0);
    } else if (segment.word.find_first_of("$'\"`\\") != std::string::npos) {
      kept(segment);  // a word with expansions or quotes of its own
    } else {
      add(segment.word, segment.quoted, 0);
    }
  }

  // `${NAME[N]}`.
  void expand_element(const Segment& segment, const std::vector<ShellWord>* array) {
    if (array) {
      if (segment.index < array->size())
        add((*array)[segment.index].text, segment.quoted, (*array)[segment.index].line);
    } else if (segment.index == 0 && script_.variables.count(segment.text)) {
      add(script_.variables.at(segment.text), segment.quoted, 0);
    } else {
      kept(segment);
    }
  }

  // `${NAME[@]}`, `${NAME[*]}` and their slices.
  void expand_all(const Segment& segment, const std::vector<ShellWord>* array) {
    if (!array) {
      if (script_.variables.count(segment.text) && segment.index == 0) {
        add(script_.variables.at(segment.text), segment.quoted, 0);  // of a plain variable
      } else {
        kept(segment);
      }
      return;
    }
    std::size_t first = std::min(segment.index, array->size());
    std::size_t last =
        segment.length ? std::min(array->size(), first + *segment.length) : array->size();
    // "${A[*]}" is one word; unquoted, ${A[*]} splits like ${A[@]}.
    bool joined = (segment.kind == Segment::Kind::kArrayJoined && segment.quoted) || !split_;
    for (std::size_t e = first; e < last; ++e) {
      if (e > first) {
        if (joined) {
          append(" ", 0);
        } else if (fields_.back().real) {
          fields_.push_back({"", false, word_.line});
        }
      }
      add((*array)[e].text, segment.quoted || joined, (*array)[e].line);
    }
  }

  void append(const std::string& text, int line) {
    if (!fields_.back().real && fields_.back().text.empty() && line) fields_.back().line = line;
    fields_.back().text += text;
    fields_.back().real = true;
  }

  void append_split(const std::string& text, int line) {
    std::size_t j = 0;
    if (!text.empty() && is_blank(text[0]) && fields_.back().real)
      fields_.push_back({"", false, word_.line});
    while (j < text.size()) {
      while (j < text.size() && is_blank(text[j])) ++j;
      if (j == text.size()) break;
      std::size_t end = j;
      while (end < text.size() && !is_blank(text[end])) ++end;
      if (fields_.back().real && j > 0) fields_.push_back({"", false, word_.line});
      append(text.substr(j, end - j), line);
      j = end;
    }
    if (!text.empty() && is_blank(text.back()) && fields_.back().real)
      fields_.push_back({"", false, word_.line});
  }

  void add(const std::string& text, bool quoted, int line) {
    if (quoted || !split_) {
      append(text, line);
    } else {
      append_split(text, line);
    }
  }

  void kept(const Segment& segment) {  // an expansion kept as written
    append(segment.source, 0);
    fields_.back().unevaluated = true;
  }

  const ShellScript& script_;
  const RawWord& word_;
  bool split_;
  std::vector<Field> fields_;
};

// Runs the tokens as bash would up to expansion: assignments, exports and arrays take effect in
// order, and each command's words are expanded with what is defined by then.
class Interpreter {
 public:
  explicit Interpreter(std::vector<ShellWarning> warnings) {
    script_.warnings = std::move(warnings);
  }

  ShellScript run(const std::vector<Token>& tokens) {
    std::vector<const Token*> command;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      const Token& token = tokens[t];
      if (token.kind == Token::Kind::kEnd) {
        execute(command);
        command.clear();
      } else if (token.kind == Token::Kind::kArrayOpen) {
        std::vector<ShellWord> elements;
        for (++t; t < tokens.size() && tokens[t].kind == Token::Kind::kWord; ++t) {
          for (ShellWord& word : expand(tokens[t].word, true)) elements.push_back(std::move(word));
        }
        std::vector<ShellWord>& array = script_.arrays[token.name];
        if (!token.append) array.clear();
        array.insert(array.end(), elements.begin(), elements.end());
        script_.variables.erase(token.name);
      } else if (token.kind == Token::Kind::kWord) {
        command.push_back(&token);
      }
    }
    execute(command);
    std::stable_sort(script_.warnings.begin(), script_.warnings.end(),
                     [](const ShellWarning& a, const ShellWarning& b) { return a.line < b.line; });
    return std::move(script_);
  }

 private:
  struct Assignment {
    std::string name;
    bool append = false;
    RawWord value;
  };

  static std::optional<Assignment> split_assignment(const RawWord& word) {
    if (word.segments.empty() || word.segments[0].kind != Segment::Kind::kText ||
        word.segments[0].quoted) {
      return std::nullopt;
    }
    const std::string& first = word.segments[0].text;
    std::size_t eq = first.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    bool append = first[eq - 1] == '+';
    std::string name = first.substr(0, append ? eq - 1 : eq);
    if (!is_name(name)) return std::nullopt;
    Assignment assignment{name, append, word};
    assignment.value.segments[0].text = first.substr(eq + 1);
    return assignment;
  }

  // The value of an assignment: expanded, never split.
  std::string assigned_value(const Assignment& assignment) {
    std::vector<ShellWord> words = expand(assignment.value, false);
    std::string value = words.empty() ? "" : words[0].text;
    if (assignment.append) {
      auto it = script_.variables.find(assignment.name);
      if (it != script_.variables.end()) value = it->second + value;
    }
    return value;
  }

  void set_variable(const std::string& name, const std::string& value, int line, bool exported) {
    script_.variables[name] = value;
    script_.arrays.erase(name);
    if (exported) exported_.insert(name);
    if (exported_.count(name)) {
      script_.exports.push_back({name, value, line});
      environment_[name] = {name, value, line};
    }
  }

  void execute(const std::vector<const Token*>& command) {
    std::size_t k = 0;
    std::vector<std::pair<std::string, std::string>> prefix;
    std::vector<int> prefix_lines;
    for (; k < command.size(); ++k) {
      std::optional<Assignment> assignment = split_assignment(command[k]->word);
      if (!assignment) break;
      prefix.emplace_back(assignment->name, assigned_value(*assignment));
      prefix_lines.push_back(command[k]->word.line);
    }
    if (k == command.size()) {  // bare assignments set shell variables
      for (std::size_t p = 0; p < prefix.size(); ++p) {
        set_variable(prefix[p].first, prefix[p].second, prefix_lines[p], false);
      }
      return;
    }
    std::vector<ShellWord> program = expand(command[k]->word, true);
    std::string name = program.empty() ? "" : program[0].text;
    if (name == "export" || name == "declare" || name == "typeset" || name == "local" ||
        name == "readonly") {
      return declare(command, k + 1, name == "export");
    }
    if (name == "unset") return unset(command, k + 1);
    add_command(command, k, std::move(prefix));
  }

  // `export`, `declare` and the like from word `from` on: assignments, and names exported
  // (`export NAME`, `declare -x NAME`).
  void declare(const std::vector<const Token*>& command, std::size_t from, bool exports) {
    for (std::size_t j = from; j < command.size(); ++j) {
      const RawWord& word = command[j]->word;
      if (std::optional<Assignment> assignment = split_assignment(word)) {
        set_variable(assignment->name, assigned_value(*assignment), word.line, exports);
        continue;
      }
      std::vector<ShellWord> words = expand(word, true);
      for (const ShellWord& w : words) {
        if (w.text.size() > 1 && w.text[0] == '-') {
          if (w.text.find('x') != std::string::npos) exports = true;
        } else if (exports && is_name(w.text)) {
          exported_.insert(w.text);
          auto it = script_.variables.find(w.text);
          if (it != script_.variables.end()) {
            script_.exports.push_back({w.text, it->second, w.line});
            environment_[w.text] = {w.text, it->second, w.line};
          }
        }
      }
    }
  }

  // `unset NAME...` from word `from` on.
  void unset(const std::vector<const Token*>& command, std::size_t from) {
    for (std::size_t j = from; j < command.size(); ++j) {
      for (const ShellWord& w : expand(command[j]->word, true)) {
        script_.variables.erase(w.text);
        script_.arrays.erase(w.text);
        exported_.erase(w.text);
        environment_.erase(w.text);
      }
    }
  }

  // A simple command whose program is word `k`, run with the `NAME=value` words before it.
  void add_command(const std::vector<const Token*>& command, std::size_t k,
                   std::vector<std::pair<std::string, std::string>> prefix) {
    ShellCommand out;
    out.assignments = std::move(prefix);
    out.line = command[k]->word.line;
    out.environment = environment_;
    for (std::size_t j = k; j < command.size(); ++j) {
      for (ShellWord& word : expand(command[j]->word, true)) out.words.push_back(std::move(word));
    }
    if (!out.words.empty() && out.words[0].text.size() > 2 &&
        out.words[0].text.rfind("--", 0) == 0 && out.words[0].opaque_array.empty()) {
      script_.warnings.push_back(
          {out.line, fmt::format("the command starts with the flag {}: a broken \\ continuation "
                                 "on a line before cut it from its program",
                                 out.words[0].text)});
    }
    script_.commands.push_back(std::move(out));
  }

  // Expands one word. `split`: unquoted expansions split into words on blanks (false for the value
  // of an assignment, which bash never splits).
  std::vector<ShellWord> expand(const RawWord& word, bool split) const {
    return WordExpansion(script_, word, split).run();
  }

  ShellScript script_;
  std::set<std::string> exported_;
  std::map<std::string, ShellExport> environment_;  // exported and set, as of now
};

}  // namespace

ShellScript read_shell_script(std::string_view text) {
  std::vector<ShellWarning> warnings;
  std::vector<Token> tokens = shell::lex(text, warnings);
  return Interpreter{std::move(warnings)}.run(tokens);
}

}  // namespace openrecipes
