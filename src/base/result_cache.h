// A folder of computed results, each stored under a digest of everything it depends on, so that
// `plan`, `recommend`, `export` and `build` do not refit the speed model or search every pair
// again when nothing changed. A hit gives back exactly what was stored; anything unreadable, cut
// short or stored under another key is a miss, and the caller computes the result again.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace openrecipes {

/// Entries kept per cache folder; writing one more removes the oldest (by modification time).
inline constexpr std::size_t kMaxCacheEntries = 64;

/// The cache folder: $OPENRECIPES_CACHE_DIR when set (set but empty: no cache), else
/// $XDG_CACHE_HOME/openrecipes (the XDG Base Directory Specification), else
/// $HOME/.cache/openrecipes; nullopt when caching is off or no such variable is set.
std::optional<std::string> result_cache_dir();

/// The build ID the linker wrote into the running executable (the ELF note NT_GNU_BUILD_ID, a
/// hash of the linked code), as lowercase hex; empty when it has none. Any change to the code gives
/// another ID, so a key that includes it never finds what another build computed.
std::string executable_build_id();

/// Computed results as JSON files `<dir>/<key>.json`, each holding its key and its value; `key` is
/// a SHA-256 in hex (64 lowercase digits), and the cache never touches a file not named so.
class ResultCache {
 public:
  /// A cache in `dir` (made when first written). `still_current`, when given, is asked just
  /// before each write: false means the inputs the key was made of changed while the value was
  /// computed (a file edited mid-run), so the value is not stored under that key.
  explicit ResultCache(std::string dir, std::function<bool()> still_current = {});

  /// The value stored under `key`, or nullopt when none is, or when the file cannot be read, is
  /// not the JSON written (cut short, edited) or holds another key. A hit marks the entry as just
  /// used, so pruning keeps it. Never throws.
  std::optional<nlohmann::json> read(const std::string& key) const;

  /// Stores `value` under `key`: written to `<key>.json.tmp-<PID>` and renamed, so a concurrent
  /// reader sees all of it or nothing; then removes the least recently used entries beyond
  /// kMaxCacheEntries (never this one) and temporary files over an hour old (a killed run's).
  /// Returns false, having left nothing behind, when `key` is not a hex SHA-256, the inputs
  /// changed (`still_current`) or the folder cannot be written (a cache is an optimisation: the
  /// caller goes on with the value it computed). Never throws.
  bool write(const std::string& key, const nlohmann::json& value) const;

  /// The folder.
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::function<bool()> still_current_;
};

}  // namespace openrecipes
