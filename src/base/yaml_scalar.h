// Writing one YAML scalar so that every reader takes it back as the same string: the blocks the
// tools print for pasting into a recipe (rows build, score, converge, check).
#pragma once

#include <string>

namespace openrecipes {

/// `text` as a YAML scalar: plain when the catalog's own strict reader (yaml_document.h) reads it
/// back as the same string and no YAML 1.1 reader would type it; else a double-quoted string.
std::string yaml_scalar(const std::string& text);

}  // namespace openrecipes
