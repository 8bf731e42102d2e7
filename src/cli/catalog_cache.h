// Where a command keeps what it computed from the catalog (base/result_cache.h), and under which
// key: one digest of the purpose, the binary and every input file of the catalog.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "base/result_cache.h"

namespace openrecipes::cli {

/// A cache and the key of one result in it.
struct CatalogCache {
  ResultCache cache;
  std::string key;  ///< SHA-256 hex of the purpose, executable_build_id() and the inputs' digest
};

/// The cache entry for `purpose` (e.g. "site predictions") computed from the catalog at `root`:
/// nullopt when caching is off (OPENRECIPES_CACHE_DIR set empty, or no home), the binary has no
/// build ID, or an input cannot be read (catalog_inputs_digest), so the caller computes the result
/// as if there were no cache. Call it before reading the catalog: the cache stores a result only
/// when the inputs' digest is still the same at the write, so a file edited while the command ran
/// never leaves its old result under the new files' key.
std::optional<CatalogCache> catalog_cache(const std::filesystem::path& root,
                                          const std::string& purpose);

}  // namespace openrecipes::cli
