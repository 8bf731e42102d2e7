#include "base/yaml_splice.h"

#include <algorithm>

#include "base/error.h"

namespace openrecipes {
namespace {

// The file's lines, each with its '\n' when it has one.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// Columns of leading spaces; -1 for a line that is blank.
int indentation(const std::string& line) {
  std::size_t at = line.find_first_not_of(' ');
  if (at == std::string::npos || line[at] == '\n' || line[at] == '\r') return -1;
  return static_cast<int>(at);
}

bool is_comment(const std::string& line) {
  std::size_t at = line.find_first_not_of(' ');
  return at != std::string::npos && line[at] == '#';
}

}  // namespace

std::optional<LineRange> yaml_entry_lines(const YamlDocument& document, const std::string& field) {
  std::vector<std::string> lines = split_lines(document.text);
  const YamlNode* mapping = &document.root;
  int end = static_cast<int>(lines.size()) + 1;  // the root's entries end at the end of the file
  LineRange range;
  int key_column = 1;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = field.find('.', start);
    std::string key =
        field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (mapping->kind != YamlNode::Kind::kMapping) return std::nullopt;
    const std::vector<YamlEntry>& entries = mapping->entries;
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const YamlEntry& entry) { return entry.key == key; });
    if (it == entries.end()) return std::nullopt;
    if (it + 1 != entries.end()) end = (it + 1)->key_position.line;
    range = {it->key_position.line, end};
    key_column = it->key_position.column;
    if (dot == std::string::npos) break;
    mapping = &it->value;
    start = dot + 1;
  }
  // Blank lines and comments at or left of the key's column just before the next entry are its.
  while (range.end - 1 > range.first) {
    const std::string& line = lines[range.end - 2];
    int indent = indentation(line);
    if (indent >= 0 && !(is_comment(line) && indent <= key_column - 1)) break;
    --range.end;
  }
  return range;
}

std::string splice_lines(const std::string& text, std::vector<LineEdit> edits) {
  std::sort(edits.begin(), edits.end(),
            [](const LineEdit& a, const LineEdit& b) { return a.range.first < b.range.first; });
  std::vector<std::string> lines = split_lines(text);
  int count = static_cast<int>(lines.size());
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const LineRange& r = edits[i].range;
    if (r.first < 1 || r.end < r.first || r.end > count + 1)
      throw BugError("splice_lines: a range outside the text");
    if (i > 0 && edits[i - 1].range.end > r.first)
      throw BugError("splice_lines: overlapping ranges");
  }
  std::string out;
  int line = 1;
  for (const LineEdit& edit : edits) {
    for (; line < edit.range.first; ++line) out += lines[line - 1];
    out += edit.lines;
    line = edit.range.end;
  }
  for (; line <= count; ++line) out += lines[line - 1];
  return out;
}

}  // namespace openrecipes
