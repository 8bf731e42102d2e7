// One digest of every file a computation over the catalog may read, for keying cached results
// (base/result_cache.h): equal digests, equal inputs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace openrecipes {

/// The catalog's inputs, relative to its root: the four shared files and every file under the
/// folders that recipes, model configs, schemas, argument rules, patches and the published
/// measurements live in.
inline constexpr const char* kCatalogInputs[] = {
    "models.yaml", "gpus.yaml", "authors.yaml", "site.yaml", "schema",
    "models",      "recipes",   "patches",      "rules",     "data"};

/// SHA-256 (as hex) over the path relative to `root`, the size and the bytes of every regular file
/// of kCatalogInputs under `root` (folders in name order; a link's name and target, then what it
/// leads to), and the name of every
/// other entry (a missing input, a FIFO, a socket: none is opened). nullopt when a folder or file
/// cannot be read, or the folders nest deeper than 32 (a link that loops): a result keyed by it
/// then is not cached. Never throws.
std::optional<std::string> catalog_inputs_digest(const std::filesystem::path& root);

/// The digest catalog_inputs_digest computes, over every input but `recipes`: what validating one
/// recipe may read besides the recipe file itself (the shared files, the models' configs, the
/// schemas, the argument rules, the patches, the published data). nullopt as there.
std::optional<std::string> catalog_context_digest(const std::filesystem::path& root);

}  // namespace openrecipes
