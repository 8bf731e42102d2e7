// Writing one YAML scalar so that every reader takes it back as the same string: the blocks the
// tools print for pasting into a recipe (rows build, score, converge, check).
#pragma once

#include <span>
#include <string>

namespace openrecipes {

/// `text` as a YAML scalar: plain when the catalog's own strict reader (yaml_document.h) reads it
/// back as the same string and no YAML 1.1 reader would type it; else a double-quoted string.
std::string yaml_scalar(const std::string& text);

/// `values` as a YAML flow sequence, `[a, b, ...]`, each number in its shortest form that reads
/// back as the same double (fmt's `{}`), ten to a line; later lines are indented by `indent`
/// spaces (deeper than the key the list belongs to, as YAML's flow context requires). The
/// values must be finite: YAML's `.inf` and `.nan` are not numbers to the catalog's reader.
std::string yaml_number_list(std::span<const double> values, int indent);

}  // namespace openrecipes
