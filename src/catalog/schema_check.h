// JSON Schema (draft-07, written in YAML) checks of catalog files, through valijson, with every
// finding turned into a Problem that points at the field's line and column.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>

#include "base/problem.h"
#include "base/yaml_document.h"
#include "text/pattern.h"

namespace valijson {
class Schema;
}

namespace openrecipes {

/// A loaded schema, ready to check documents. valijson checks every keyword but `pattern` and
/// `propertyNames`, which this class checks itself with PCRE2 (valijson's std::regex overflows the
/// stack on long strings and cannot bound a pathological pattern).
class SchemaChecker {
 public:
  /// Loads the schema at `path` (YAML). Returns nullopt and adds problems when the file is
  /// missing, is not valid YAML, holds a pattern PCRE2 rejects, or is not a schema valijson accepts
  /// (an unresolvable $ref, an unknown type).
  static std::optional<SchemaChecker> load(const std::string& path, Problems& problems);

  /// Checks `document` against the schema. Returns one problem per failed constraint (innermost
  /// first), rule id `schema`, each with the field path, its position, what the schema expects and
  /// what the file holds. Empty when the document conforms.
  Problems check(const YamlDocument& document) const;

  /// The schema itself as JSON (for the field reference and for rule listings).
  const nlohmann::json& json() const { return *json_; }
  /// The schema with its mappings in file order (for the generated field reference).
  const nlohmann::ordered_json& ordered_json() const { return ordered_json_; }

 private:
  struct FieldPath;  // a field's path, spelled out only for a problem (schema_check.cc)
  void check_patterns(const nlohmann::json& schema, const YamlNode& node, const FieldPath& field,
                      const YamlDocument& document, Problems& problems) const;

  // Shared, so that a copy's schema nodes keep their addresses, which with_patterns_ holds.
  std::shared_ptr<const nlohmann::json> json_;
  nlohmann::ordered_json ordered_json_;
  /// The schema nodes (each after its $ref) under which a value may meet a `pattern` or a
  /// `propertyNames` pattern: check_patterns walks no other part of a document.
  std::shared_ptr<const std::unordered_set<const nlohmann::json*>> with_patterns_;
  std::shared_ptr<const valijson::Schema> schema_;
  std::map<std::string, Pattern> patterns_;  ///< every pattern of the schema, compiled
};

}  // namespace openrecipes
