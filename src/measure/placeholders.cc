#include "measure/placeholders.h"

#include <algorithm>
#include <cctype>

#include "base/ascii.h"
#include "runs/shell_reader.h"

namespace openrecipes {
namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '_' || c == '-';
}

// Adds each `<name>` of `text` (a letter first, then letters, digits, blanks, `_` and `-`: no
// `.` or `/`, as runs/shell_lexer.cc keeps `<in.txt` a redirection).
void add_placeholders(const std::string& text, int line, std::vector<Placeholder>& out) {
  for (std::size_t open = text.find('<'); open != std::string::npos;
       open = text.find('<', open + 1)) {
    std::size_t close = open + 1;
    if (close >= text.size() || !std::isalpha(static_cast<unsigned char>(text[close]))) continue;
    while (close < text.size() && is_name_char(text[close])) ++close;
    if (close >= text.size() || text[close] != '>') continue;
    Placeholder found{text.substr(open + 1, close - open - 1), line};
    bool seen = std::any_of(out.begin(), out.end(), [&](const Placeholder& p) {
      return p.name == found.name && p.line == found.line;
    });
    if (!seen) out.push_back(std::move(found));
  }
}

// The key's letters and digits, lowercase, with ' ', '_' and '-' as one '_'.
std::string normal_key(std::string_view key) {
  std::string out = ascii_lowercase(key);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == ' ' || c == '-'; }, '_');
  return out;
}

bool is_python_module(std::string_view value) {
  bool start = true;
  for (char c : value) {
    bool letter = std::isalpha(static_cast<unsigned char>(c)) || c == '_';
    if (c == '.') {
      if (start) return false;
      start = true;
    } else if (letter || (!start && std::isdigit(static_cast<unsigned char>(c)))) {
      start = false;
    } else {
      return false;
    }
  }
  return !start;
}

bool is_shell_safe(std::string_view value) {
  return !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
  });
}

}  // namespace

const std::vector<DocumentedPlaceholder>& documented_placeholders() {
  static const std::vector<DocumentedPlaceholder> list = {
      {"slime entry module",
       "a Python module name: slime's train (train.py) or train_async (train_async.py), run from "
       "the slime checkout (THUDM/slime)",
       "train_async", true},
  };
  return list;
}

std::vector<Placeholder> find_placeholders(std::string_view run) {
  ShellScript script = read_shell_script(run);
  std::vector<Placeholder> out;
  for (const ShellCommand& command : script.commands) {
    for (const ShellWord& word : command.words) add_placeholders(word.text, word.line, out);
  }
  for (const ShellExport& exported : script.exports)
    add_placeholders(exported.value, exported.line, out);
  std::stable_sort(out.begin(), out.end(),
                   [](const Placeholder& a, const Placeholder& b) { return a.line < b.line; });
  return out;
}

bool placeholder_key_matches(std::string_view key, std::string_view name) {
  return normal_key(key) == normal_key(name);
}

std::optional<std::string> placeholder_value_problem(std::string_view name,
                                                     std::string_view value) {
  for (const DocumentedPlaceholder& documented : documented_placeholders()) {
    if (documented.python_module && placeholder_key_matches(name, documented.name) &&
        !is_python_module(value))
      return documented.value_rule;
  }
  if (!is_shell_safe(value)) return "letters, digits and _ . / : = @ % + , - only";
  return std::nullopt;
}

std::string fill_placeholders(std::string run,
                              const std::vector<std::pair<std::string, std::string>>& values) {
  for (const Placeholder& placeholder : find_placeholders(run)) {
    for (const auto& [key, value] : values) {
      if (!placeholder_key_matches(key, placeholder.name)) continue;
      std::string marker = "<" + placeholder.name + ">";
      for (std::size_t at = run.find(marker); at != std::string::npos;
           at = run.find(marker, at + value.size()))
        run.replace(at, marker.size(), value);
    }
  }
  return run;
}

}  // namespace openrecipes
