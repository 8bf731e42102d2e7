// Options every subcommand shares, and how the catalog root is found from them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace openrecipes::cli {

/// Exit codes of every subcommand: 0 success, 1 problems found, 2 usage error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitUsage = 2;

/// The global options.
struct GlobalOptions {
  std::string root;  ///< --root DIR; empty means "search upward from the working directory"
};

/// The catalog root from `--root`, or the nearest directory upward from the working directory
/// holding models.yaml and recipes/. On failure prints why to stderr and returns nullopt.
std::optional<std::filesystem::path> resolve_root(const GlobalOptions& options);

}  // namespace openrecipes::cli
