#include "runs/shell_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace openrecipes {
namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

bool is_name(std::string_view text) {
  if (text.empty() || !is_name_start(text[0])) return false;
  for (char c : text) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

int count_lines(std::string_view text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

// One piece of a word as written: literal text, or an expansion of a variable or array.
struct Segment {
  enum class Kind { kText, kVariable, kArrayAll, kArrayJoined, kArrayElement, kDefault };
  Kind kind = Kind::kText;
  std::string text;       // kText: the text; otherwise the variable's name
  std::size_t index = 0;  // kArrayElement; kArrayAll and kArrayJoined: the slice's offset
  bool quoted = false;    // written inside quotes or escaped: never split into words
  std::string source;     // the expansion as written, kept when the text does not define the name
  std::optional<std::size_t> length;  // kArrayAll and kArrayJoined: the slice's length
  std::string op;                     // kDefault: `:-`, `-`, `:+`, `+`, `:=` or `=`
  std::string word;                   // kDefault: the word after the operator, as written
};

Segment make_segment(Segment::Kind kind, std::string text, bool quoted, std::string source) {
  Segment segment;
  segment.kind = kind;
  segment.text = std::move(text);
  segment.quoted = quoted;
  segment.source = std::move(source);
  return segment;
}

struct RawWord {
  std::vector<Segment> segments;
  bool has_quotes = false;   // `""` is an empty word; nothing at all is no word
  bool unevaluated = false;  // holds text bash would expand that is kept as written
  int line = 1;
};

// The value of an ANSI-C quoted string `$'...'` (without its quotes), decoded as bash does.
std::string decode_ansi_c(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char c = text[++i];
    auto digits = [&](std::size_t most, int base) {
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
      return std::pair<unsigned, std::size_t>{value, n};
    };
    switch (c) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'e':
      case 'E':
        out += '\x1B';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x': {
        auto [value, n] = digits(2, 16);
        out += n ? std::string(1, static_cast<char>(value)) : "\\x";
        break;
      }
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        --i;
        auto [value, n] = digits(3, 8);
        out += static_cast<char>(value & 0xFF);
        break;
      }
      case '\\':
      case '\'':
      case '"':
      case '?':
        out += c;
        break;
      default:
        out += '\\';
        out += c;
        break;
    }
  }
  return out;
}

struct Token {
  enum class Kind { kWord, kEnd, kArrayOpen, kArrayClose };
  Kind kind = Kind::kWord;
  RawWord word;         // kWord
  std::string name;     // kArrayOpen
  bool append = false;  // kArrayOpen: `NAME+=(`
  int line = 1;
};

// Splits the text into words and command ends, keeping each word's pieces apart so that
// expansion can happen later, in order, with the variables defined by then.
class Lexer {
 public:
  Lexer(std::string_view text, std::vector<ShellWarning>& warnings)
      : text_(text), warnings_(warnings) {}

  std::vector<Token> run() {
    while (i_ < text_.size()) step();
    if (in_array_) {
      warn(array_line_,
           fmt::format("the array {}=( is never closed with ): bash rejects the script",
                       array_name_));
    }
    if (!heredoc_delimiter_.empty()) {
      warn(line_, fmt::format("the here-document is never ended by a {} line", heredoc_delimiter_));
    }
    finish_word();
    end_command();
    return std::move(tokens_);
  }

 private:
  void step() {
    char c = text_[i_];
    char next = i_ + 1 < text_.size() ? text_[i_ + 1] : '\0';
    if (c == '\\' && next == '\n') {  // continuation: both characters vanish
      i_ += 2;
      ++line_;
      return;
    }
    if (c == '\\' && (next == ' ' || next == '\t' || next == '\r') &&
        only_blanks_to_line_end(i_ + 1)) {
      warn(line_,
           "a \\ followed by blanks does not continue the line: the command ends here (remove "
           "the blanks after the \\)");
    }
    if (c == '\n') {
      finish_word();
      ++i_;
      ++line_;
      if (!heredoc_delimiter_.empty()) skip_heredoc();
      if (!in_array_) end_command();
      return;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      finish_word();
      ++i_;
      return;
    }
    if (c == '#' && !in_word_) {
      std::size_t start = i_;
      while (i_ < text_.size() && text_[i_] != '\n') ++i_;
      std::string_view comment = text_.substr(start, i_ - start);
      while (!comment.empty() &&
             (comment.back() == ' ' || comment.back() == '\t' || comment.back() == '\r'))
        comment.remove_suffix(1);
      bool in_command = in_array_ || (!tokens_.empty() && tokens_.back().kind != Token::Kind::kEnd);
      if (in_command && !comment.empty() && comment.back() == '\\') {
        warn(line_,
             "a comment ending in \\ does not continue the command: it ends on this line and "
             "the next line is a command of its own");
      }
      return;
    }
    if (in_array_ && c == ')') {
      finish_word();
      tokens_.push_back({Token::Kind::kArrayClose, {}, "", false, line_});
      in_array_ = false;
      ++i_;
      return;
    }
    if (!in_array_ && (c == ';' || c == '&' || c == '|' || c == ')')) {
      finish_word();
      end_command();
      ++i_;
      return;
    }
    if (c == '(' && !in_array_) {
      if (open_array()) return;
      finish_word();  // a subshell: its commands are commands like any other
      end_command();
      ++i_;
      return;
    }
    if (c == '\\') {
      start_word();
      if (next != '\0') {
        add_text(std::string(1, next), true);
        i_ += 2;
      } else {
        add_text("\\", false);
        ++i_;
      }
      return;
    }
    if (c == '\'') {
      start_word();
      word_.has_quotes = true;
      std::size_t close = text_.find('\'', i_ + 1);
      if (close == std::string_view::npos) {
        warn(line_, "the ' quote opened here is never closed: bash rejects the script");
        close = text_.size();
      }
      add_literal(text_.substr(i_ + 1, close - i_ - 1), true);
      i_ = close + 1;
      return;
    }
    if (c == '"') {
      start_word();
      word_.has_quotes = true;
      read_double_quoted();
      return;
    }
    if (c == '$') {
      start_word();
      read_dollar(false);
      return;
    }
    if (c == '`') {
      start_word();
      read_backquoted(false);
      return;
    }
    if (c == '<' && !in_word_ && read_placeholder()) return;
    if (c == '<' || c == '>') {
      read_redirection();
      return;
    }
    start_word();
    add_text(std::string(1, c), false);
    ++i_;
  }

  void start_word() {
    if (in_word_) return;
    in_word_ = true;
    word_ = RawWord{};
    word_.line = line_;
  }

  void add_text(const std::string& text, bool quoted) {
    if (!word_.segments.empty() && word_.segments.back().kind == Segment::Kind::kText &&
        word_.segments.back().quoted == quoted) {
      word_.segments.back().text += text;
    } else {
      word_.segments.push_back(make_segment(Segment::Kind::kText, text, quoted, ""));
    }
  }

  // Text copied as written (it may span lines).
  void add_literal(std::string_view text, bool quoted) {
    add_text(std::string(text), quoted);
    line_ += count_lines(text);
  }

  void finish_word() {
    if (!in_word_) return;
    in_word_ = false;
    if (drop_next_word_) {  // the target of a redirection
      drop_next_word_ = false;
      if (heredoc_pending_) {
        heredoc_pending_ = false;
        for (const Segment& segment : word_.segments) heredoc_delimiter_ += segment.text;
      }
      return;
    }
    int line = word_.line;
    tokens_.push_back({Token::Kind::kWord, std::move(word_), "", false, line});
  }

  void end_command() {
    if (!tokens_.empty() && tokens_.back().kind == Token::Kind::kEnd) return;
    tokens_.push_back({Token::Kind::kEnd, {}, "", false, line_});
  }

  // `NAME=(` or `NAME+=(`: the words up to `)` are the array's elements; newlines inside are
  // blanks.
  bool open_array() {
    if (!in_word_ || word_.has_quotes || word_.segments.size() != 1 ||
        word_.segments[0].kind != Segment::Kind::kText || word_.segments[0].quoted) {
      return false;
    }
    std::string prefix = word_.segments[0].text;
    if (prefix.size() < 2 || prefix.back() != '=') return false;
    bool append = prefix.size() >= 3 && prefix[prefix.size() - 2] == '+';
    std::string name = prefix.substr(0, prefix.size() - (append ? 2 : 1));
    if (!is_name(name)) return false;
    in_word_ = false;
    tokens_.push_back({Token::Kind::kArrayOpen, {}, name, append, word_.line});
    in_array_ = true;
    array_name_ = name;
    array_line_ = word_.line;
    ++i_;
    return true;
  }

  void warn(int line, std::string message) { warnings_.push_back({line, std::move(message)}); }

  bool only_blanks_to_line_end(std::size_t from) const {
    for (std::size_t j = from; j < text_.size() && text_[j] != '\n'; ++j) {
      if (text_[j] != ' ' && text_[j] != '\t' && text_[j] != '\r') return false;
    }
    return true;
  }

  // `` `...` ``: a command substitution, kept as written.
  void read_backquoted(bool quoted) {
    std::size_t close = text_.find('`', i_ + 1);
    if (close == std::string_view::npos) {
      warn(line_,
           "the ` command substitution opened here is never closed: bash rejects the script");
      close = text_.size();
    } else {
      ++close;
    }
    word_.unevaluated = true;
    add_literal(text_.substr(i_, close - i_), quoted);
    i_ = close;
  }

  void read_double_quoted() {
    int open_line = line_;
    ++i_;  // the opening quote
    while (i_ < text_.size() && text_[i_] != '"') {
      char c = text_[i_];
      char next = i_ + 1 < text_.size() ? text_[i_ + 1] : '\0';
      if (c == '\\' && next == '\n') {
        i_ += 2;
        ++line_;
      } else if (c == '\\' && (next == '$' || next == '`' || next == '"' || next == '\\')) {
        add_text(std::string(1, next), true);
        i_ += 2;
      } else if (c == '$') {
        read_dollar(true);
      } else if (c == '`') {
        read_backquoted(true);
      } else {
        add_literal(text_.substr(i_, 1), true);
        ++i_;
      }
    }
    if (i_ >= text_.size()) {
      warn(open_line, "the \" quote opened here is never closed: bash rejects the script");
    }
    ++i_;  // the closing quote
  }

  // The index of the `close` that matches the `open` at `from`, skipping quoted text; npos when it
  // is never closed.
  std::size_t matching(std::size_t from, char open, char close) const {
    int depth = 0;
    for (std::size_t j = from; j < text_.size(); ++j) {
      char c = text_[j];
      if (c == '\\') {
        ++j;
      } else if (c == '\'') {
        j = text_.find('\'', j + 1);
        if (j == std::string_view::npos) return std::string_view::npos;
      } else if (c == '"') {
        for (++j; j < text_.size() && text_[j] != '"'; ++j) {
          if (text_[j] == '\\') ++j;
        }
      } else if (c == open) {
        ++depth;
      } else if (c == close && --depth == 0) {
        return j;
      }
    }
    return std::string_view::npos;
  }

  // matching(), or the end of the text with a warning when the expansion is never closed.
  std::size_t closing(std::size_t from, char open, char close, std::string_view what) {
    std::size_t at = matching(from, open, close);
    if (at != std::string_view::npos) return at;
    warn(line_, fmt::format("the {} opened here is never closed: bash rejects the script", what));
    return text_.size() - 1;
  }

  void read_dollar(bool quoted) {
    char next = i_ + 1 < text_.size() ? text_[i_ + 1] : '\0';
    if (next == '(') {  // command substitution or arithmetic: kept as written
      std::size_t close = closing(i_ + 1, '(', ')', "$( expansion");
      word_.unevaluated = true;
      add_literal(text_.substr(i_, close + 1 - i_), quoted);
      i_ = close + 1;
      return;
    }
    if (next == '\'' && !quoted) {  // ANSI-C quoting
      word_.has_quotes = true;
      std::size_t close = i_ + 2;
      while (close < text_.size() && text_[close] != '\'') close += text_[close] == '\\' ? 2 : 1;
      if (close >= text_.size()) {
        warn(line_, "the $' quote opened here is never closed: bash rejects the script");
        close = text_.size();
      }
      std::string_view body = text_.substr(i_ + 2, std::min(close, text_.size()) - i_ - 2);
      add_text(decode_ansi_c(body), true);
      line_ += count_lines(body);
      i_ = close + 1;
      return;
    }
    if (next == '{') {
      std::size_t close = closing(i_ + 1, '{', '}', "${ expansion");
      std::string source(text_.substr(i_, close + 1 - i_));
      std::string inner = source.size() >= 3 ? source.substr(2, source.size() - 3) : "";
      i_ = close + 1;
      line_ += count_lines(source);
      Segment segment = make_segment(Segment::Kind::kVariable, inner, quoted, source);
      std::size_t bracket = inner.find('[');
      if (is_name(inner)) {
        word_.segments.push_back(segment);
        return;
      }
      std::size_t name_end = 0;
      while (name_end < inner.size() && is_name_char(inner[name_end])) ++name_end;
      if (name_end > 0 && is_name_start(inner[0]) && name_end < inner.size()) {
        for (const char* op : {":-", ":+", ":=", "-", "+", "="}) {
          if (inner.compare(name_end, std::string_view(op).size(), op) != 0) continue;
          segment.kind = Segment::Kind::kDefault;
          segment.text = inner.substr(0, name_end);
          segment.op = op;
          segment.word = inner.substr(name_end + segment.op.size());
          word_.segments.push_back(segment);
          return;
        }
      }
      std::optional<std::pair<std::size_t, std::optional<std::size_t>>> slice;
      if (std::size_t at = inner.find("]:");
          at != std::string::npos && bracket != std::string::npos && at > bracket) {
        slice = parse_slice(inner.substr(at + 2));
        if (slice) inner = inner.substr(0, at + 1);
      }
      if (bracket != std::string::npos && inner.back() == ']' &&
          is_name(inner.substr(0, bracket))) {
        std::string index = inner.substr(bracket + 1, inner.size() - bracket - 2);
        if (slice && index != "@" && index != "*") {
          word_.unevaluated = true;
          add_text(source, quoted);
          return;
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
          add_text(source, quoted);
          return;
        }
        word_.segments.push_back(segment);
        return;
      }
      word_.unevaluated = true;  // ${#NAME}, ${NAME/a/b} and the like: not expanded
      add_text(source, quoted);
      return;
    }
    if (is_name_start(next)) {
      std::size_t end = i_ + 1;
      while (end < text_.size() && is_name_char(text_[end])) ++end;
      std::string name(text_.substr(i_ + 1, end - i_ - 1));
      word_.segments.push_back(make_segment(Segment::Kind::kVariable, name, quoted, "$" + name));
      i_ = end;
      return;
    }
    add_text("$", quoted);
    ++i_;
  }

  // `OFFSET` or `OFFSET:LENGTH` of a slice, both plain non-negative numbers.
  static std::optional<std::pair<std::size_t, std::optional<std::size_t>>> parse_slice(
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

  // `<slime entry module>`: a placeholder for text the reader fills in, not a redirection. Words
  // and blanks up to a `>` on the same line, without a path's `/` or `.` (`<in.txt >out` is two
  // redirections).
  bool read_placeholder() {
    if (i_ + 1 >= text_.size() || !std::isalpha(static_cast<unsigned char>(text_[i_ + 1])))
      return false;
    for (std::size_t j = i_ + 1; j < text_.size(); ++j) {
      char c = text_[j];
      if (c == '>' && text_[j - 1] != ' ') {
        start_word();
        add_text(std::string(text_.substr(i_, j + 1 - i_)), true);
        i_ = j + 1;
        return true;
      }
      if (c == '\n' || c == '<' || c == '>' || c == '$' || c == '\'' || c == '"' || c == '\\' ||
          c == '`' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '/' ||
          c == '.') {
        return false;
      }
    }
    return false;
  }

  // `>`, `>>`, `>|`, `<`, `<>`, `<<`, `<<-`, `<<<`, `N>&M`: the operator and its target are
  // dropped.
  void read_redirection() {
    bool fd_number = in_word_ && !word_.has_quotes && word_.segments.size() == 1 &&
                     word_.segments[0].kind == Segment::Kind::kText &&
                     word_.segments[0].text.find_first_not_of("0123456789") == std::string::npos;
    if (fd_number) {
      in_word_ = false;  // `2>`: the 2 is part of the operator
    } else {
      finish_word();
    }
    char c = text_[i_++];
    auto peek = [&](char expected) { return i_ < text_.size() && text_[i_] == expected; };
    bool heredoc = false;
    if (c == '<' && peek('<')) {
      ++i_;
      if (peek('<')) {
        ++i_;  // here-string: its word is dropped like a file name
      } else {
        heredoc = true;
        if (peek('-')) ++i_;
      }
    } else if (peek('>') || peek('|')) {
      ++i_;
    }
    if (peek('&')) {  // `2>&1`, `>&-`: the target follows directly
      ++i_;
      std::size_t start = i_;
      while (i_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[i_])) || text_[i_] == '-'))
        ++i_;
      if (i_ > start) return;
    }
    drop_next_word_ = true;
    heredoc_pending_ = heredoc;
  }

  // The lines of a here-document, up to its delimiter line.
  void skip_heredoc() {
    std::string delimiter = heredoc_delimiter_;
    heredoc_delimiter_.clear();
    while (i_ < text_.size()) {
      std::size_t end = text_.find('\n', i_);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(i_, end - i_);
      while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
      i_ = end < text_.size() ? end + 1 : end;
      ++line_;
      if (line == delimiter) return;
    }
    warn(line_, fmt::format("the here-document is never ended by a {} line", delimiter));
  }

  std::string_view text_;
  std::vector<ShellWarning>& warnings_;
  std::size_t i_ = 0;
  int line_ = 1;
  std::string array_name_;
  int array_line_ = 1;
  std::vector<Token> tokens_;
  RawWord word_;
  bool in_word_ = false;
  bool in_array_ = false;
  bool drop_next_word_ = false;
  bool heredoc_pending_ = false;
  std::string heredoc_delimiter_;
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
      bool exports = name == "export";
      for (std::size_t j = k + 1; j < command.size(); ++j) {
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
      return;
    }
    if (name == "unset") {
      for (std::size_t j = k + 1; j < command.size(); ++j) {
        for (const ShellWord& w : expand(command[j]->word, true)) {
          script_.variables.erase(w.text);
          script_.arrays.erase(w.text);
          exported_.erase(w.text);
          environment_.erase(w.text);
        }
      }
      return;
    }
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
    if (word.segments.size() == 1 && word.segments[0].kind == Segment::Kind::kArrayAll &&
        !script_.arrays.count(word.segments[0].text) &&
        !script_.variables.count(word.segments[0].text)) {
      return {{word.segments[0].source, word.line, word.segments[0].text, false}};
    }
    struct Field {
      std::string text;
      bool real = false;  // holds something, even an empty quoted string
      int line = 0;
      bool unevaluated = false;
    };
    std::vector<Field> fields(1, Field{"", false, word.line});
    auto append = [&](const std::string& text, int line) {
      if (!fields.back().real && fields.back().text.empty() && line) fields.back().line = line;
      fields.back().text += text;
      fields.back().real = true;
    };
    auto append_split = [&](const std::string& text, int line) {
      std::size_t j = 0;
      if (!text.empty() && is_blank(text[0]) && fields.back().real)
        fields.push_back({"", false, word.line});
      while (j < text.size()) {
        while (j < text.size() && is_blank(text[j])) ++j;
        if (j == text.size()) break;
        std::size_t end = j;
        while (end < text.size() && !is_blank(text[end])) ++end;
        if (fields.back().real && j > 0) fields.push_back({"", false, word.line});
        append(text.substr(j, end - j), line);
        j = end;
      }
      if (!text.empty() && is_blank(text.back()) && fields.back().real)
        fields.push_back({"", false, word.line});
    };
    auto add = [&](const std::string& text, bool quoted, int line) {
      if (quoted || !split) {
        append(text, line);
      } else {
        append_split(text, line);
      }
    };
    auto kept = [&](const Segment& segment) {  // an expansion kept as written
      append(segment.source, 0);
      fields.back().unevaluated = true;
    };
    for (const Segment& segment : word.segments) {
      auto array = script_.arrays.find(segment.text);
      bool is_array = segment.kind != Segment::Kind::kText && array != script_.arrays.end();
      switch (segment.kind) {
        case Segment::Kind::kText:
          append(segment.text, 0);
          break;
        case Segment::Kind::kVariable: {
          auto variable = script_.variables.find(segment.text);
          if (variable != script_.variables.end()) {
            add(variable->second, segment.quoted, 0);
          } else if (is_array) {  // $NAME of an array is its first element
            if (!array->second.empty())
              add(array->second[0].text, segment.quoted, array->second[0].line);
          } else {
            kept(segment);
          }
          break;
        }
        case Segment::Kind::kDefault: {
          std::optional<std::string> value;
          if (auto variable = script_.variables.find(segment.text);
              variable != script_.variables.end()) {
            value = variable->second;
          } else if (is_array) {
            value = array->second.empty() ? "" : array->second[0].text;
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
          break;
        }
        case Segment::Kind::kArrayElement:
          if (is_array) {
            if (segment.index < array->second.size()) {
              add(array->second[segment.index].text, segment.quoted,
                  array->second[segment.index].line);
            }
          } else if (segment.index == 0 && script_.variables.count(segment.text)) {
            add(script_.variables.at(segment.text), segment.quoted, 0);
          } else {
            kept(segment);
          }
          break;
        case Segment::Kind::kArrayJoined:
        case Segment::Kind::kArrayAll:
          if (is_array) {
            const std::vector<ShellWord>& all = array->second;
            std::size_t first = std::min(segment.index, all.size());
            std::size_t last =
                segment.length ? std::min(all.size(), first + *segment.length) : all.size();
            std::vector<ShellWord> elements(all.begin() + static_cast<std::ptrdiff_t>(first),
                                            all.begin() + static_cast<std::ptrdiff_t>(last));
            // "${A[*]}" is one word; unquoted, ${A[*]} splits like ${A[@]}.
            bool joined = (segment.kind == Segment::Kind::kArrayJoined && segment.quoted) || !split;
            for (std::size_t e = 0; e < elements.size(); ++e) {
              if (e > 0) {
                if (joined) {
                  append(" ", 0);
                } else if (fields.back().real) {
                  fields.push_back({"", false, word.line});
                }
              }
              add(elements[e].text, segment.quoted || joined, elements[e].line);
            }
          } else if (script_.variables.count(segment.text) &&
                     segment.index == 0) {  // ${NAME[@]} of a plain variable
            add(script_.variables.at(segment.text), segment.quoted, 0);
          } else {
            kept(segment);
          }
          break;
      }
    }
    std::vector<ShellWord> words;
    for (const Field& field : fields) {
      if (field.real)
        words.push_back({field.text, field.line, "", field.unevaluated || word.unevaluated});
    }
    if (words.empty() && word.has_quotes) words.push_back({"", word.line, "", word.unevaluated});
    return words;
  }

  ShellScript script_;
  std::set<std::string> exported_;
  std::map<std::string, ShellExport> environment_;  // exported and set, as of now
};

}  // namespace

ShellScript read_shell_script(std::string_view text) {
  std::vector<ShellWarning> warnings;
  std::vector<Token> tokens = Lexer{text, warnings}.run();
  return Interpreter{std::move(warnings)}.run(tokens);
}

}  // namespace openrecipes
