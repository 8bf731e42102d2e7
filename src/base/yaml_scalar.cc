#include "base/yaml_scalar.h"

#include <fmt/format.h>

#include <cctype>

#include "base/ascii.h"
#include "base/yaml_document.h"

namespace openrecipes {

namespace {

// Text another YAML reader (YAML 1.1, as PyYAML) could take for a number, date or boolean.
bool looks_typed_to_yaml_1_1(const std::string& text) {
  std::string lower = ascii_lowercase(text);
  for (const char* word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}) {
    if (lower == word) return true;
  }
  char first = text.front();
  bool numeric_start = std::isdigit(static_cast<unsigned char>(first)) || first == '+' ||
                       first == '-' || first == '.';
  return numeric_start &&
         text.find_first_not_of("0123456789abcdefABCDEFxXoO._:+-") == std::string::npos;
}

}  // namespace

std::string yaml_scalar(const std::string& text) {
  // Plain when the catalog's own strict reader gives the same string back (so `True`, `a: b` or
  // `#x` get quotes) and no YAML 1.1 reader would type it (`0x2A`, `yes`); otherwise a JSON
  // string, which is a valid YAML double-quoted scalar.
  if (!text.empty() && text.find_first_of("\n\r\t\"'\\") == std::string::npos &&
      text.front() != ' ' && text.back() != ' ' && !looks_typed_to_yaml_1_1(text)) {
    Problems problems;
    std::optional<YamlDocument> document = parse_yaml("value: " + text + "\n", "", problems);
    if (document && document->root.kind == YamlNode::Kind::kMapping &&
        document->root.entries.size() == 1) {
      nlohmann::json value = resolve_scalar(document->root.entries[0].value);
      if (value.is_string() && value.get<std::string>() == text) return text;
    }
  }
  return nlohmann::json(text).dump();
}

std::string yaml_number_list(std::span<const double> values, int indent) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0)
      out += i % 10 == 0 ? ",\n" + std::string(static_cast<std::size_t>(indent), ' ') : ", ";
    out += fmt::format("{}", values[i]);
  }
  return out + "]";
}

}  // namespace openrecipes
