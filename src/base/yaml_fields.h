// Typed reads of fields from a YamlNode that has already passed its schema check. A field that
// is absent or of another type reads as the fallback, so a conversion never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/yaml_document.h"

namespace openrecipes {

/// The string at `key`, or `fallback`.
std::string field_string(const YamlNode& node, std::string_view key, std::string fallback = "");
/// The string at `key`, or nullopt when absent or null.
std::optional<std::string> field_optional_string(const YamlNode& node, std::string_view key);
/// The integer at `key`, or `fallback`.
std::int64_t field_int(const YamlNode& node, std::string_view key, std::int64_t fallback = 0);
/// The integer at `key` narrowed to int (schemas bound these fields far below INT_MAX), or
/// `fallback`.
int field_int32(const YamlNode& node, std::string_view key, int fallback = 0);
/// The number at `key` (integer or float), or `fallback`.
double field_number(const YamlNode& node, std::string_view key, double fallback = 0.0);
/// The number at `key`, or nullopt when absent or null.
std::optional<double> field_optional_number(const YamlNode& node, std::string_view key);
/// The boolean at `key`, or `fallback`.
bool field_bool(const YamlNode& node, std::string_view key, bool fallback = false);
/// A mapping of strings at `key` as (name, value) pairs in file order; non-strings are rendered
/// as their source text.
std::vector<std::pair<std::string, std::string>> field_string_map(const YamlNode& node,
                                                                  std::string_view key);
/// The list of strings at `key`.
std::vector<std::string> field_string_list(const YamlNode& node, std::string_view key);
/// The numbers (integer or float) of the list at `key`, in order; items of other types are left
/// out, an absent or non-list field gives an empty list.
std::vector<double> field_number_list(const YamlNode& node, std::string_view key);
/// The node at `key` when it is a mapping, else nullptr (absent or null).
const YamlNode* field_mapping(const YamlNode& node, std::string_view key);

}  // namespace openrecipes
