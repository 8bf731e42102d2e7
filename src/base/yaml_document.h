// A YAML document read into a plain tree that keeps every node's line and column, so that
// every later check can point at the exact field. Strict on purpose: catalog files are data.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/problem.h"

namespace openrecipes {

struct YamlEntry;

/// One node of a YAML document. Scalars keep their source text; `quoted` is true for quoted and
/// block scalars, which are always strings (YAML 1.2 core schema resolution applies to plain ones).
struct YamlNode {
  enum class Kind { kNull, kScalar, kSequence, kMapping };
  Kind kind = Kind::kNull;
  SourcePosition position;
  std::string scalar;
  bool quoted = false;
  char style =
      0;  ///< scalars: the first source character: '|' or '>' (block), '"' or '\'' (quoted)
  std::vector<YamlNode> items;     ///< kSequence
  std::vector<YamlEntry> entries;  ///< kMapping, in file order

  /// The value under `key` of a mapping, or nullptr when absent or not a mapping.
  const YamlNode* find(std::string_view key) const;
};

/// One key of a mapping with the position of the key itself.
struct YamlEntry {
  std::string key;
  SourcePosition key_position;
  YamlNode value;
};

/// A parsed file: its root node, and the position of every field by dotted path
/// (`gpu.count`, `result.window[0]`; the root is "").
struct YamlDocument {
  std::string file;
  std::string text;  ///< the source, for positions inside multi-line values
  YamlNode root;
  std::map<std::string, SourcePosition> positions;

  /// Position of `field`, or of its nearest ancestor that exists, or 1:1.
  SourcePosition position_of(const std::string& field) const;
};

/// Largest catalog file accepted, in bytes (recipes are ~7 KB; 1 MiB leaves room and bounds work).
inline constexpr std::size_t kMaxCatalogFileBytes = 1 << 20;

/// Reads a whole file. Returns the text, or a problem naming the file (at 0:0, the file as a
/// whole) when it is missing, not a regular file, unreadable, or larger than `max_bytes`.
std::optional<std::string> read_text_file(const std::string& path, std::size_t max_bytes,
                                          Problems& problems);

/// Parses `text` (the contents of `file`) as one YAML document, with libyaml
/// (https://pyyaml.org/wiki/LibYAML).
/// Rejects, as problems with positions: bytes that are not UTF-8 (naming the byte offset),
/// characters YAML does not allow in a stream (controls other than tab and line breaks), the
/// line breaks of YAML 1.1 alone (U+0085, U+2028, U+2029), CR-only line endings, an empty
/// document, more than one document, syntax errors (libyaml's message and context), a quoted
/// string left open at the end of the file, nesting deeper than 500 levels, duplicate keys,
/// non-scalar keys, anchors and aliases (which also rules out alias bombs), explicit tags, and
/// control characters written as escapes in a string. Returns nullopt when any problem was found.
std::optional<YamlDocument> parse_yaml(std::string_view text, const std::string& file,
                                       Problems& problems);

/// Resolves a scalar by the YAML 1.2 core schema: null, true/false, integer (int64), float, or
/// string; quoted and block scalars are strings. An integer beyond int64 becomes a float.
nlohmann::json resolve_scalar(const YamlNode& node);

/// Converts a node to JSON with scalars resolved as by `resolve_scalar`; mapping keys are strings.
nlohmann::json to_json(const YamlNode& node);

/// As `to_json`, keeping mappings in file order (for output a reader follows, like the field
/// reference).
nlohmann::ordered_json to_ordered_json(const YamlNode& node);

/// Describes a node for a "found ..." clause: `string "abc"`, `integer 5`, `a list`, `null`.
std::string describe_found(const YamlNode& node);

}  // namespace openrecipes
