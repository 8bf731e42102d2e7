#include "params/hf_config.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "base/json_syntax.h"
#include "params/python_json.h"

namespace openrecipes {
namespace {

// What a wrong-typed node holds, in words; the bare NaN and +-Infinity that Python writes (kept
// as plain words by the YAML reader, see python_json.h) are numbers, not strings.
std::string found_in(const YamlNode& node) {
  if (node.kind == YamlNode::Kind::kScalar && !node.quoted &&
      (node.scalar == "NaN" || node.scalar == "Infinity" || node.scalar == "-Infinity")) {
    return "the non-finite number " + node.scalar;
  }
  return describe_found(node);
}

}  // namespace

std::optional<HfConfig> HfConfig::parse(const std::string& text, const std::string& file,
                                        Problems& problems) {
  // JSON first (the YAML reader below, used for line:column positions, would accept more), as
  // Python writes it: NaN and +-Infinity where json.dumps puts them (python_json.h). The YAML
  // reader keeps them as the plain words, which no size the counter reads can be.
  // A UTF-8 byte-order mark, which RFC 8259 section 8.1 lets a parser ignore, is dropped.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) return parse(text.substr(3), file, problems);
  const std::string strict = mask_python_nonfinite_numbers(text);
  if (std::optional<JsonSyntaxError> error = json_syntax_error(strict)) {
    Problem problem = json_syntax_problem(*error, file, "config");
    if (problem.expected.empty()) problem.expected = "a JSON object";
    problems.push_back(std::move(problem));
    return std::nullopt;
  }
  std::optional<YamlDocument> document = parse_yaml(text, file, problems);
  if (!document) return std::nullopt;
  if (document->root.kind != YamlNode::Kind::kMapping) {
    problems.push_back({file,
                        {1, 1},
                        "",
                        "config",
                        "a config must be a JSON object",
                        "an object",
                        describe_found(document->root)});
    return std::nullopt;
  }
  HfConfig config;
  config.document_ = std::move(*document);
  // Transformers' multimodal configs nest the language model in `text_config`; InternVL's and
  // Nemotron Nano VL's (remote code, configuration_internvl_chat.py) in `llm_config`.
  for (const char* key : {"text_config", "llm_config"}) {
    const YamlNode* part = config.document_.root.find(key);
    // An empty text part would leave every field to the top level, whose model_type names the
    // multimodal wrapper: say what is missing rather than that the wrapper is unsupported.
    if (part && part->kind == YamlNode::Kind::kMapping && part->entries.empty()) {
      problems.push_back(
          {file, config.document_.position_of(key), key, "config", "holds no language model",
           "an object with the language model's fields and model_type", "an empty object"});
      return std::nullopt;
    }
    if (part && part->kind == YamlNode::Kind::kMapping) {
      config.part_ = key;
      config.prefix_ = std::string(key) + ".";
      break;
    }
    if (part && part->kind != YamlNode::Kind::kNull) {
      problems.push_back({file, config.document_.position_of(key), key, "config", "wrong type",
                          "an object", describe_found(*part)});
      return std::nullopt;
    }
  }
  return config;
}

const YamlNode* HfConfig::find(const std::string& key) const {
  const YamlNode* part = prefix_.empty() ? &document_.root : document_.root.find(part_);
  const YamlNode* node = part->find(key);
  if (!node && !prefix_.empty()) node = document_.root.find(key);  // shared top-level fields
  return node && node->kind != YamlNode::Kind::kNull ? node : nullptr;
}

std::string HfConfig::path(const std::string& key) const {
  // A shared top-level field is named as it is written; one absent from both belongs to the text
  // part, where the language model's fields are (its line is the part's).
  if (prefix_.empty()) return key;
  const YamlNode* part = document_.root.find(part_);
  return !part->find(key) && document_.root.find(key) ? key : prefix_ + key;
}

Problem HfConfig::problem_at(const std::string& key, std::string message, std::string expected,
                             std::string found) const {
  // The text part's prefix goes before the key's first name, not before its index.
  std::size_t cut = key.find_first_of(".[");
  std::string name = key.substr(0, cut);
  std::string located = path(name) + (cut == std::string::npos ? "" : key.substr(cut));
  return {document_.file,
          document_.position_of(located),
          located,
          "config",
          std::move(message),
          std::move(expected),
          std::move(found)};
}

void HfConfig::report(const std::string& key, std::string message, std::string expected,
                      std::string found) const {
  std::string field = path(key);
  SourcePosition at = document_.position_of(field);
  if (found == "nothing") {
    // A required field written as null is there, as null; a missing one may be missing because
    // the text part that should hold it is null.
    const YamlNode* part = prefix_.empty() ? &document_.root : document_.root.find(part_);
    const YamlNode* raw = part->find(key);
    if (!raw && !prefix_.empty()) raw = document_.root.find(key);
    if (raw && raw->kind == YamlNode::Kind::kNull) {
      found = "null";
    } else if (std::string null_part = null_text_part(); !null_part.empty()) {
      found =
          fmt::format("nothing ({} is null: the language model's fields are missing)", null_part);
      at = document_.position_of(null_part);
    }
  }
  // Families read some sizes twice (a block and a consistency check): report each once.
  for (const Problem& p : problems_) {
    if (p.field == field && p.message == message) return;
  }
  problems_.push_back({document_.file, at, field, "config", std::move(message), std::move(expected),
                       std::move(found)});
}

std::string HfConfig::model_type() const {
  const YamlNode* node = find("model_type");
  if (node && (node->kind != YamlNode::Kind::kScalar || !node->quoted)) {
    report("model_type", "wrong type", "a string such as \"llama\"", found_in(*node));
    return "";
  }
  if (!node) {
    report("model_type", "missing model_type", "a string such as \"llama\"", "nothing");
    return "";
  }
  return node->scalar;
}

std::string HfConfig::model_type_if_valid() const {
  const YamlNode* node = find("model_type");
  return node && node->kind == YamlNode::Kind::kScalar && node->quoted ? node->scalar : "";
}

bool HfConfig::has(const std::string& key) const { return find(key) != nullptr; }

std::string HfConfig::null_text_part() const {
  for (const char* key : {"text_config", "llm_config"}) {
    const YamlNode* part = document_.root.find(key);
    if (part && part->kind == YamlNode::Kind::kNull) return key;
  }
  return "";
}

std::int64_t HfConfig::integer(const std::string& key, std::int64_t minimum,
                               std::int64_t maximum) const {
  const YamlNode* node = find(key);
  if (!node) {
    report(key, "missing required field", fmt::format("an integer from {} to {}", minimum, maximum),
           "nothing");
    return minimum;
  }
  return integer_or(key, minimum, minimum, maximum);
}

std::int64_t HfConfig::integer_or(const std::string& key, std::int64_t fallback,
                                  std::int64_t minimum, std::int64_t maximum) const {
  const YamlNode* node = find(key);
  if (!node) return fallback;
  nlohmann::json value =
      node->kind == YamlNode::Kind::kScalar ? resolve_scalar(*node) : nlohmann::json();
  if (!value.is_number_integer() || node->quoted) {
    // A whole number written as a float (1e18, 36.0) or beyond int64 (2**63) is judged by its
    // value first: outside the bounds it is too large or too small, as the integer would be;
    // inside them, a float where an integer belongs is a wrong type.
    const double real = value.is_number_float() ? value.get<double>() : 0.0;
    bool whole = value.is_number_float() && !node->quoted && std::isfinite(real) &&
                 std::floor(real) == real &&
                 (real < static_cast<double>(minimum) || real > static_cast<double>(maximum));
    if (whole) {
      report(key, real > static_cast<double>(maximum) ? "too large" : "too small",
             fmt::format("an integer from {} to {}", minimum, maximum), node->scalar);
    } else {
      report(key, "wrong type", "an integer", found_in(*node));
    }
    return std::max(fallback, minimum);
  }
  std::int64_t number = value.get<std::int64_t>();
  if (number < minimum || number > maximum) {
    report(key, number < minimum ? "too small" : "too large",
           fmt::format("an integer from {} to {}", minimum, maximum), fmt::format("{}", number));
    return std::max(fallback, minimum);
  }
  return number;
}

bool HfConfig::boolean_or(const std::string& key, bool fallback) const {
  const YamlNode* node = find(key);
  if (!node) return fallback;
  nlohmann::json value =
      node->kind == YamlNode::Kind::kScalar ? resolve_scalar(*node) : nlohmann::json();
  if (!value.is_boolean() || node->quoted) {
    report(key, "wrong type", "true or false", found_in(*node));
    return fallback;
  }
  return value.get<bool>();
}

std::vector<std::string> HfConfig::strings(const std::string& key) const {
  std::vector<std::string> out;
  const YamlNode* node = find(key);
  if (!node) return out;
  if (node->kind != YamlNode::Kind::kSequence) {
    report(key, "wrong type", "a list of strings", found_in(*node));
    return out;
  }
  for (std::size_t i = 0; i < node->items.size(); ++i) {
    const YamlNode& item = node->items[i];
    if (item.kind != YamlNode::Kind::kScalar || !item.quoted) {
      // At the entry, so that a null or number inside the list is not read as the list's.
      report(fmt::format("{}[{}]", key, i), "wrong type", "a string", found_in(item));
      return {};
    }
    out.push_back(item.scalar);
  }
  return out;
}

std::vector<std::int64_t> HfConfig::integers(const std::string& key) const {
  std::vector<std::int64_t> out;
  const YamlNode* node = find(key);
  if (!node) return out;
  if (node->kind != YamlNode::Kind::kSequence) {
    report(key, "wrong type", "a list of integers", found_in(*node));
    return out;
  }
  for (std::size_t i = 0; i < node->items.size(); ++i) {
    const YamlNode& item = node->items[i];
    nlohmann::json value = resolve_scalar(item);
    if (!value.is_number_integer()) {
      report(fmt::format("{}[{}]", key, i), "wrong type", "an integer", found_in(item));
      return {};
    }
    out.push_back(value.get<std::int64_t>());
  }
  return out;
}

std::string HfConfig::string_or(const std::string& key, const std::string& fallback) const {
  const YamlNode* node = find(key);
  if (!node) return fallback;
  if (node->kind != YamlNode::Kind::kScalar || !node->quoted) {
    report(key, "wrong type", "a string", found_in(*node));
    return fallback;
  }
  return node->scalar;
}

std::optional<HfConfig> HfConfig::read_file(const std::string& path, Problems& problems) {
  std::error_code ec;
  std::string file = std::filesystem::is_directory(path, ec) ? path + "/config.json" : path;
  std::optional<std::string> text = read_text_file(file, kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  return parse(*text, file, problems);
}

}  // namespace openrecipes
