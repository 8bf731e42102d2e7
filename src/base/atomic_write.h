// Writing a whole text file so that its path never holds half of it: a temporary sibling
// (`<path>.tmp-<pid>`), then one rename(2), which POSIX makes atomic within a file system.
#pragma once

#include <string>

#include "base/problem.h"

namespace openrecipes {

/// Writes `text` (bytes) to `path` through `<path>.tmp-<pid>` and a rename, replacing a regular
/// file already there. Returns false, with one Problem appended (file `path`, field `field`, rule
/// `io`) and nothing left behind, when `path` is a folder, link, device, FIFO or socket, or the
/// temporary file cannot be written or renamed.
bool write_text_atomically(const std::string& path, const std::string& text,
                           const std::string& field, Problems& problems);

}  // namespace openrecipes
