// JSON Schema (draft-07, written in YAML) checks of catalog files, through valijson, with every
// finding turned into a Problem that points at the field's line and column.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/problem.h"
#include "catalog/yaml_document.h"

namespace valijson {
class Schema;
}

namespace openrecipes {

/// A loaded schema, ready to check documents.
class SchemaChecker {
 public:
  /// Loads the schema at `path` (YAML). Returns nullopt and adds problems when the file is
  /// missing, is not valid YAML, or is not a schema valijson accepts.
  static std::optional<SchemaChecker> load(const std::string& path, Problems& problems);

  /// Checks `document` against the schema. Returns one problem per failed constraint (innermost
  /// first), rule id `schema`, each with the field path, its position, what the schema expects and
  /// what the file holds. Empty when the document conforms.
  Problems check(const YamlDocument& document) const;

  /// The schema itself as JSON (for the field reference and for rule listings).
  const nlohmann::json& json() const { return json_; }

 private:
  nlohmann::json json_;
  std::shared_ptr<const valijson::Schema> schema_;
};

}  // namespace openrecipes
