#include "catalog/run_command.h"

#include <cctype>

namespace openrecipes {
namespace {

struct Word {
  std::string text;
  int line = 0;
  bool ends_command = false;  // an unescaped newline or ';' follows
};

std::vector<Word> split_words(std::string_view text) {
  std::vector<Word> words;
  Word current;
  bool in_word = false;
  int line = 0;
  auto finish = [&](bool ends_command) {
    if (in_word) {
      words.push_back(current);
      current = Word{};
      in_word = false;
    }
    if (ends_command && !words.empty()) words.back().ends_command = true;
  };
  auto begin = [&] {
    if (!in_word) {
      in_word = true;
      current.line = line;
    }
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {  // continuation
      finish(false);
      ++i;
      ++line;
      continue;
    }
    if (c == '\n' || c == ';') {
      finish(true);
      if (c == '\n') ++line;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      finish(false);
      continue;
    }
    if (c == '#' && !in_word) {  // comment to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    begin();
    if (c == '\'' || c == '"') {
      char quote = c;
      for (++i; i < text.size() && text[i] != quote; ++i) {
        if (text[i] == '\\' && quote == '"' && i + 1 < text.size()) ++i;
        if (text[i] == '\n') ++line;
        current.text += text[i];
      }
      continue;
    }
    if (c == '$' && i + 1 < text.size() && (text[i + 1] == '(' || text[i + 1] == '{')) {
      char open = text[i + 1], close = open == '(' ? ')' : '}';
      int depth = 0;
      for (; i < text.size(); ++i) {
        current.text += text[i];
        if (text[i] == open) ++depth;
        if (text[i] == close && --depth == 0) break;
        if (text[i] == '\n') ++line;
      }
      continue;
    }
    current.text += c;
  }
  finish(true);
  return words;
}

bool is_override(const std::string& word) {
  // Hydra-style `a.b_c=value` (Megatron-Bridge); environment assignments are upper-case.
  std::size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i) {
    char c = word[i];
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '_' || c == '.' || c == '+')) {
      return false;
    }
  }
  return word.find('.') < eq;
}

}  // namespace

const RunArgument* RunCommand::find(std::string_view name) const {
  for (auto it = arguments.rbegin(); it != arguments.rend(); ++it) {
    if (it->name == name) return &*it;
  }
  return nullptr;
}

const RunArgument* RunCommand::find_any(std::initializer_list<std::string_view> names) const {
  for (auto it = arguments.rbegin(); it != arguments.rend(); ++it) {
    for (std::string_view name : names) {
      if (it->name == name) return &*it;
    }
  }
  return nullptr;
}

RunCommand parse_run_command(std::string_view text) {
  RunCommand command;
  std::vector<Word> words = split_words(text);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const Word& word = words[i];
    if (word.text == "export") {
      for (std::size_t j = i + 1; j < words.size(); ++j) {
        std::size_t eq = words[j].text.find('=');
        if (eq != std::string::npos) {
          command.exports.emplace_back(words[j].text.substr(0, eq), words[j].text.substr(eq + 1));
        }
        if (words[j].ends_command) {
          i = j;
          break;
        }
      }
      continue;
    }
    if (word.text.rfind("--", 0) == 0 && word.text.size() > 2) {
      RunArgument argument{word.text, std::nullopt, word.line};
      std::size_t eq = word.text.find('=');
      if (eq != std::string::npos) {
        argument.name = word.text.substr(0, eq);
        argument.value = word.text.substr(eq + 1);
      } else if (!word.ends_command && i + 1 < words.size() &&
                 words[i + 1].text.rfind("--", 0) != 0) {
        argument.value = words[i + 1].text;
      }
      command.arguments.push_back(std::move(argument));
    } else if (is_override(word.text)) {
      std::size_t eq = word.text.find('=');
      command.arguments.push_back({word.text.substr(0, eq), word.text.substr(eq + 1), word.line});
    }
  }
  return command;
}

}  // namespace openrecipes
