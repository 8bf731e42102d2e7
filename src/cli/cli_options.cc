#include "cli/cli_options.h"

#include <fmt/format.h>

#include "catalog/catalog.h"

namespace openrecipes::cli {

std::optional<std::filesystem::path> resolve_root(const GlobalOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!options.root.empty()) {
    fs::path root = fs::absolute(options.root, ec);
    if (!fs::is_regular_file(root / "models.yaml", ec) || !fs::is_directory(root / "recipes", ec)) {
      fmt::print(
          stderr,
          "openrecipes: --root {}: not a catalog (expected models.yaml and recipes/ in it)\n",
          options.root);
      return std::nullopt;
    }
    return root;
  }
  fs::path cwd = fs::current_path(ec);
  std::optional<fs::path> root = find_catalog_root(cwd);
  if (!root) {
    fmt::print(stderr,
               "openrecipes: no catalog found in {} or above it (a directory holding models.yaml "
               "and recipes/); pass --root DIR\n",
               cwd.string());
  }
  return root;
}

}  // namespace openrecipes::cli
