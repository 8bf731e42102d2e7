#include "cli/json_output.h"

#include <fmt/format.h>

#include "cli/version.h"

namespace openrecipes::cli {

nlohmann::json with_version(nlohmann::json value) {
  if (value.is_object()) value["openrecipes_version"] = openrecipes_version();
  return value;
}

nlohmann::ordered_json with_version(nlohmann::ordered_json value) {
  if (!value.is_object()) return value;
  nlohmann::ordered_json out = {{"openrecipes_version", openrecipes_version()}};
  for (auto& [key, member] : value.items()) {
    if (key != "openrecipes_version") out[key] = std::move(member);
  }
  return out;
}

void print_json(const nlohmann::json& value, int indent) {
  fmt::print("{}\n", with_version(value).dump(indent, ' ', false,
                                              nlohmann::json::error_handler_t::replace));
}

void print_json(const nlohmann::ordered_json& value, int indent) {
  fmt::print("{}\n", with_version(value).dump(indent, ' ', false,
                                              nlohmann::ordered_json::error_handler_t::replace));
}

}  // namespace openrecipes::cli
