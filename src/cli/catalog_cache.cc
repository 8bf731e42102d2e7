#include "cli/catalog_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "catalog/catalog_digest.h"
#include "text/sha256.h"

namespace openrecipes::cli {

std::string CatalogCache::key(const std::string& purpose, const std::string& evidence) const {
  return sha256_hex(
      fmt::format("{}\n{}\n{}\n{}", purpose, executable_build_id(), context_digest, evidence));
}

std::optional<CatalogCache> catalog_cache(const std::filesystem::path& root) {
  std::optional<std::string> dir = result_cache_dir();
  if (!dir || executable_build_id().empty()) return std::nullopt;
  std::optional<std::string> context = catalog_context_digest(root);
  if (!context) return std::nullopt;
  auto unchanged = [root, digest = *context] { return catalog_context_digest(root) == digest; };
  return CatalogCache{ResultCache(*dir, unchanged), *context};
}

CatalogCheck check_catalog_remembering_clean(const std::filesystem::path& root,
                                             const std::vector<std::string>& files,
                                             const std::filesystem::path& display_base) {
  std::optional<std::string> dir = result_cache_dir();
  std::string build = executable_build_id();
  std::optional<std::string> context =
      dir && !build.empty() ? catalog_context_digest(root) : std::nullopt;
  if (!context) return check_catalog(root, files, display_base);
  auto unchanged = [root, digest = *context] { return catalog_context_digest(root) == digest; };
  ResultCache cache(*dir, unchanged);
  std::string key = sha256_hex(fmt::format("clean recipes\n{}\n{}\n", build, *context));
  CleanRecipes clean;
  if (std::optional<nlohmann::json> stored = cache.read(key); stored && stored->is_array()) {
    for (const nlohmann::json& entry : *stored) {
      if (entry.is_string()) clean.known.insert(entry.get<std::string>());
    }
  }
  CatalogCheck check = check_catalog(root, files, display_base, &clean);
  std::set<std::string> keep(clean.found.begin(), clean.found.end());
  if (!files.empty()) keep.insert(clean.known.begin(), clean.known.end());
  if (keep.size() != clean.known.size() ||
      !std::all_of(keep.begin(), keep.end(),
                   [&](const std::string& k) { return clean.known.count(k) > 0; })) {
    cache.write(key, nlohmann::json(keep));  // false (not stored) only costs the next run time
  }
  return check;
}

}  // namespace openrecipes::cli
