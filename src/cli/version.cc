#include "cli/version.h"

#include <fmt/format.h>

#include "version_info.h"

namespace openrecipes::cli {

std::string openrecipes_version() { return OPENRECIPES_VERSION_TEXT; }

std::string version_line() {
  return fmt::format("openrecipes {} (git {})", OPENRECIPES_VERSION_TEXT, OPENRECIPES_GIT_SHA_TEXT);
}

}  // namespace openrecipes::cli
