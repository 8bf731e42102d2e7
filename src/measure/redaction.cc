#include "measure/redaction.h"

#include <cctype>
#include <regex>

namespace openrecipes {
namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

std::string replace_words(std::string text, const std::string& name,
                          const std::string& replacement) {
  std::size_t at = 0;
  while ((at = text.find(name, at)) != std::string::npos) {
    bool starts = at == 0 || !word_char(text[at - 1]);
    std::size_t end = at + name.size();
    // A trailing '.' ends a sentence, not a name.
    bool ends = end == text.size() || !word_char(text[end]) ||
                (text[end] == '.' && (end + 1 == text.size() || !word_char(text[end + 1])));
    if (starts && ends) {
      text.replace(at, name.size(), replacement);
      at += replacement.size();
    } else {
      at = end;
    }
  }
  return text;
}

}  // namespace

void RedactionTerms::add(const std::string& name, const std::string& replacement) {
  if (name.size() >= 2) names.emplace_back(name, replacement);
}

std::string redact(const std::string& text, const RedactionTerms& terms) {
  std::string out = text;
  // Longest first, so that `gpu-large` goes before `gpu`.
  auto sorted = terms.names;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [name, replacement] : sorted) out = replace_words(out, name, replacement);
  static const std::regex kRegistry(
      R"((^|[\s('"=,])([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?::[0-9]+)?|[A-Za-z0-9-]+:[0-9]+)/[^\s'",;()]+)");
  out = std::regex_replace(out, kRegistry, "$1<registry>");
  static const std::regex kPath(R"((^|[\s('"=,:])(/[^\s'",;():]+))");
  return std::regex_replace(out, kPath, "$1<path>");
}

std::string redact_yaml_block(const std::string& block, const RedactionTerms& terms) {
  std::string out;
  std::size_t start = 0;
  while (start < block.size()) {
    std::size_t end = block.find('\n', start);
    std::string line =
        block.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? block.size() : end + 1;
    std::size_t indent = line.find_first_not_of(' ');
    if (indent != std::string::npos && line[indent] == '#') {
      line = line.substr(0, indent + 1) + redact(line.substr(indent + 1), terms);
    } else if (std::size_t colon = line.find(": "); colon != std::string::npos) {
      line = line.substr(0, colon + 2) + redact(line.substr(colon + 2), terms);
    }
    out += line;
    if (end != std::string::npos) out += '\n';
  }
  return out;
}

}  // namespace openrecipes
