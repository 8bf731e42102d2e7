#include "cli/catalog_cache.h"

#include <fmt/format.h>

#include "catalog/catalog_digest.h"
#include "text/sha256.h"

namespace openrecipes::cli {

std::optional<CatalogCache> catalog_cache(const std::filesystem::path& root,
                                          const std::string& purpose) {
  std::optional<std::string> dir = result_cache_dir();
  std::string build = executable_build_id();
  if (!dir || build.empty()) return std::nullopt;
  std::optional<std::string> inputs = catalog_inputs_digest(root);
  if (!inputs) return std::nullopt;
  auto unchanged = [root, digest = *inputs] { return catalog_inputs_digest(root) == digest; };
  return CatalogCache{ResultCache(*dir, unchanged),
                      sha256_hex(fmt::format("{}\n{}\n{}\n", purpose, build, *inputs))};
}

}  // namespace openrecipes::cli
