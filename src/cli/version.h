// The version of this build: project(VERSION) in CMakeLists.txt and the git commit it was
// configured from.
#pragma once

#include <string>

namespace openrecipes::cli {

/// The release, "X.Y.Z" (CMakeLists.txt, project(VERSION)).
std::string openrecipes_version();

/// `openrecipes --version`'s line: "openrecipes X.Y.Z (git <short sha>)", the sha read by git at
/// configure time, "unknown" when the source was not a git checkout.
std::string version_line();

}  // namespace openrecipes::cli
