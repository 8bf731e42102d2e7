#include "base/yaml_fields.h"

namespace openrecipes {

std::string field_string(const YamlNode& node, std::string_view key, std::string fallback) {
  std::optional<std::string> value = field_optional_string(node, key);
  return value ? *value : fallback;
}

std::optional<std::string> field_optional_string(const YamlNode& node, std::string_view key) {
  const YamlNode* child = node.find(key);
  if (!child || child->kind != YamlNode::Kind::kScalar) return std::nullopt;
  nlohmann::json value = resolve_scalar(*child);
  if (value.is_null()) return std::nullopt;
  return child->scalar;
}

std::int64_t field_int(const YamlNode& node, std::string_view key, std::int64_t fallback) {
  const YamlNode* child = node.find(key);
  if (!child) return fallback;
  nlohmann::json value = resolve_scalar(*child);
  return value.is_number_integer() ? value.get<std::int64_t>() : fallback;
}

int field_int32(const YamlNode& node, std::string_view key, int fallback) {
  return static_cast<int>(field_int(node, key, fallback));
}

double field_number(const YamlNode& node, std::string_view key, double fallback) {
  return field_optional_number(node, key).value_or(fallback);
}

std::optional<double> field_optional_number(const YamlNode& node, std::string_view key) {
  const YamlNode* child = node.find(key);
  if (!child) return std::nullopt;
  nlohmann::json value = resolve_scalar(*child);
  if (!value.is_number()) return std::nullopt;
  return value.get<double>();
}

bool field_bool(const YamlNode& node, std::string_view key, bool fallback) {
  const YamlNode* child = node.find(key);
  if (!child) return fallback;
  nlohmann::json value = resolve_scalar(*child);
  return value.is_boolean() ? value.get<bool>() : fallback;
}

std::vector<std::pair<std::string, std::string>> field_string_map(const YamlNode& node,
                                                                  std::string_view key) {
  std::vector<std::pair<std::string, std::string>> out;
  const YamlNode* child = node.find(key);
  if (!child || child->kind != YamlNode::Kind::kMapping) return out;
  for (const YamlEntry& entry : child->entries) out.emplace_back(entry.key, entry.value.scalar);
  return out;
}

std::vector<std::string> field_string_list(const YamlNode& node, std::string_view key) {
  std::vector<std::string> out;
  const YamlNode* child = node.find(key);
  if (!child || child->kind != YamlNode::Kind::kSequence) return out;
  for (const YamlNode& item : child->items) out.push_back(item.scalar);
  return out;
}

std::vector<double> field_number_list(const YamlNode& node, std::string_view key) {
  std::vector<double> out;
  const YamlNode* child = node.find(key);
  if (!child || child->kind != YamlNode::Kind::kSequence) return out;
  for (const YamlNode& item : child->items) {
    if (item.kind != YamlNode::Kind::kScalar) continue;
    nlohmann::json value = resolve_scalar(item);
    if (value.is_number()) out.push_back(value.get<double>());
  }
  return out;
}

const YamlNode* field_mapping(const YamlNode& node, std::string_view key) {
  const YamlNode* child = node.find(key);
  return child && child->kind == YamlNode::Kind::kMapping ? child : nullptr;
}

}  // namespace openrecipes
