#include "params/python_json.h"

#include <array>
#include <cstring>

namespace openrecipes {
namespace {

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The last character before `at` that is not white space, or '\0' at the start.
char previous_token(const std::string& text, std::size_t at) {
  while (at > 0 && is_json_space(text[at - 1])) --at;
  return at == 0 ? '\0' : text[at - 1];
}

bool ends_a_value(const std::string& text, std::size_t at) {
  return at == text.size() || text[at] == ',' || text[at] == ']' || text[at] == '}' ||
         is_json_space(text[at]);
}

}  // namespace

std::string mask_python_nonfinite_numbers(const std::string& text) {
  // Each word and a finite number of its length ("-Infinity" -> "-1.000000").
  struct Word {
    const char* word;
    const char* number;
  };
  static constexpr std::array<Word, 3> kWords = {
      {{"-Infinity", "-1.000000"}, {"Infinity", "1.000000"}, {"NaN", "0.0"}}};
  std::string out = text;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    for (const Word& w : kWords) {
      std::size_t n = std::strlen(w.word);
      if (text.compare(i, n, w.word) != 0) continue;
      char before = previous_token(text, i);
      // A value stands after ':' (in an object) or '[' / ',' (in an array, or an object's next
      // key, which a number cannot be either: the strict check still refuses it) or alone.
      bool value_position = before == ':' || before == '[' || before == ',' || before == '\0';
      if (value_position && ends_a_value(text, i + n)) out.replace(i, n, w.number);
      i += n - 1;
      break;
    }
  }
  return out;
}

}  // namespace openrecipes
