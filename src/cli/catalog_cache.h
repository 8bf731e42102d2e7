// Where a command keeps what it computed from the catalog (base/result_cache.h), and under which
// key: one digest of the purpose, the binary, the catalog's shared inputs and what the command read
// from its recipes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "base/result_cache.h"
#include "validate/recipe_validator.h"

namespace openrecipes::cli {

/// The result cache for what a command computes from the catalog, with the digest of every input
/// but `recipes/` (catalog_context_digest) taken before the catalog is read. A result's key also
/// holds what the command derived from the recipes it read (measurement_evidence), so an edit
/// that changes no measurement keeps the result, and a recipe edited while the command ran is
/// keyed by what was read.
struct CatalogCache {
  ResultCache cache;           ///< stores only while the context digest is still the same
  std::string context_digest;  ///< catalog_context_digest, before the catalog was read

  /// The key of `purpose`'s result computed from `evidence`: SHA-256 hex of the purpose,
  /// executable_build_id(), the context digest and the evidence.
  std::string key(const std::string& purpose, const std::string& evidence) const;
};

/// The cache for results computed from the catalog at `root`: nullopt when caching is off
/// (OPENRECIPES_CACHE_DIR set empty, or no home), the binary has no build ID, or an input cannot
/// be read (catalog_context_digest), so the caller computes the result as if there were no cache.
/// Call it before reading the catalog: a result is stored only when the context digest is still
/// the same at the write, so a shared file edited while the command ran never leaves its old
/// result under the new files' key.
std::optional<CatalogCache> catalog_cache(const std::filesystem::path& root);

/// check_catalog (validate/recipe_validator.h), remembering which recipes were clean: their keys
/// (CleanRecipes) are kept in the result cache under the purpose "clean recipes", the binary's
/// build ID and catalog_context_digest, so that a recipe whose bytes and path are unchanged since
/// a check found it clean is only parsed. Problems are never cached: every recipe with one is
/// checked again. Without a cache (OPENRECIPES_CACHE_DIR set empty, no home, no build ID, an
/// unreadable input) it is check_catalog. A whole-catalog check (`files` empty) stores exactly the
/// recipes it found clean; a check of named files adds them to those stored.
CatalogCheck check_catalog_remembering_clean(const std::filesystem::path& root,
                                             const std::vector<std::string>& files,
                                             const std::filesystem::path& display_base);

}  // namespace openrecipes::cli
