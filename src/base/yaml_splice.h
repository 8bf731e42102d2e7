// Replacing whole entries of a YAML file as text, so that every other line (comments, quoting,
// key order, line breaks) stays as its author wrote it: `openrecipes finalize` fills a draft's
// result, correctness and workload.dataset this way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/yaml_document.h"

namespace openrecipes {

/// Lines [first, end) of a file, 1-based.
struct LineRange {
  int first = 0;
  int end = 0;
};

/// The lines of the mapping entry at dotted path `field` (`result`, `workload.dataset`; mappings
/// only, no sequence indices) in `document`: from its key's line to the line before the next entry
/// of the same mapping or of a mapping above it, less the blank and comment lines just before that
/// entry that are indented no deeper than the key (they belong to what follows). Returns nullopt
/// when a key on the path is missing or a value on the path is not a mapping.
std::optional<LineRange> yaml_entry_lines(const YamlDocument& document, const std::string& field);

/// One edit: the lines of `range` replaced by `lines` (each ending in '\n'; empty deletes).
struct LineEdit {
  LineRange range;
  std::string lines;
};

/// `text` with every edit applied. The ranges must not overlap (BugError otherwise); a range
/// with first == end inserts before that line. Lines are counted as '\n'-terminated; a last line
/// without '\n' counts too.
std::string splice_lines(const std::string& text, std::vector<LineEdit> edits);

}  // namespace openrecipes
