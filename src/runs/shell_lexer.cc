#include "runs/shell_lexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

namespace openrecipes::shell {
namespace {

int count_lines(std::string_view text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

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
      warn(heredoc_line_,
           fmt::format("the here-document is never ended by a {} line", heredoc_delimiter_));
    }
    finish_word();
    end_command();
    return std::move(tokens_);
  }

 private:
  void step() {
    char c = text_[i_];
    char next = i_ + 1 < text_.size() ? text_[i_ + 1] : '\0';
    if (read_line_end(c, next)) return;
    if (c == '#' && !in_word_) return read_comment();
    if (read_operator(c)) return;
    if (read_quoting(c, next)) return;
    if (c == '<' && !in_word_ && read_placeholder()) return;
    if (c == '<' || c == '>') return read_redirection();
    start_word();
    add_text(std::string(1, c), false);
    ++i_;
  }

  // A `\`-newline continuation, a newline or a blank; warns of a `\` followed by blanks.
  bool read_line_end(char c, char next) {
    if (c == '\\' && next == '\n') {  // continuation: both characters vanish
      i_ += 2;
      ++line_;
      return true;
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
      return true;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      finish_word();
      ++i_;
      return true;
    }
    return false;
  }

  // `#` at the start of a word: the rest of the line; warns of a comment ending in `\`.
  void read_comment() {
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
  }

  // The `)` closing an array; `;`, `&`, `|` and `)` ending a command; `(` opening an array or a
  // subshell.
  bool read_operator(char c) {
    if (in_array_ && c == ')') {
      finish_word();
      tokens_.push_back({Token::Kind::kArrayClose, {}, "", false, line_});
      in_array_ = false;
      ++i_;
      return true;
    }
    if (!in_array_ && (c == ';' || c == '&' || c == '|' || c == ')')) {
      finish_word();
      end_command();
      ++i_;
      return true;
    }
    if (c == '(' && !in_array_) {
      if (open_array()) return true;
      finish_word();  // a subshell: its commands are commands like any other
      end_command();
      ++i_;
      return true;
    }
    return false;
  }

  // `\`, `'...'`, `"..."`, `$...` and `` `...` ``.
  bool read_quoting(char c, char next) {
    if (c == '\\') {
      start_word();
      if (next != '\0') {
        add_text(std::string(1, next), true);
        i_ += 2;
      } else {
        add_text("\\", false);
        ++i_;
      }
      return true;
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
      return true;
    }
    if (c != '"' && c != '$' && c != '`') return false;
    start_word();
    if (c == '"') {
      word_.has_quotes = true;
      read_double_quoted();
    } else if (c == '$') {
      read_dollar(false);
    } else {
      read_backquoted(false);
    }
    return true;
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
        heredoc_line_ = word_.line;
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
    } else if (next == '\'' && !quoted) {
      read_ansi_c();
    } else if (next == '{') {
      read_braced(quoted);
    } else if (is_name_start(next)) {
      std::size_t end = i_ + 1;
      while (end < text_.size() && is_name_char(text_[end])) ++end;
      std::string name(text_.substr(i_ + 1, end - i_ - 1));
      word_.segments.push_back(make_segment(Segment::Kind::kVariable, name, quoted, "$" + name));
      i_ = end;
    } else {
      add_text("$", quoted);
      ++i_;
    }
  }

  // `$'...'`: ANSI-C quoting, decoded.
  void read_ansi_c() {
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
  }

  // `${...}`: see parse_braced.
  void read_braced(bool quoted) {
    std::size_t close = closing(i_ + 1, '{', '}', "${ expansion");
    std::string source(text_.substr(i_, close + 1 - i_));
    std::string inner = source.size() >= 3 ? source.substr(2, source.size() - 3) : "";
    i_ = close + 1;
    line_ += count_lines(source);
    BracedExpansion braced = parse_braced(inner, source, quoted);
    if (braced.segment) {
      word_.segments.push_back(std::move(*braced.segment));
      return;
    }
    word_.unevaluated |= braced.unevaluated;
    add_text(source, quoted);
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
    // Named at its `<<` line: that is where to look, and a last line without a newline would
    // otherwise count one line past the end.
    warn(heredoc_line_, fmt::format("the here-document is never ended by a {} line", delimiter));
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
  int heredoc_line_ = 1;  // the line of the `<<` whose document is being read
};

}  // namespace

std::vector<Token> lex(std::string_view text, std::vector<ShellWarning>& warnings) {
  return Lexer{text, warnings}.run();
}

}  // namespace openrecipes::shell
