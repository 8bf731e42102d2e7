#include "base/result_cache.h"

#include <elf.h>
#include <fmt/format.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "base/json_depth.h"

namespace openrecipes {
namespace fs = std::filesystem;
namespace {

// Cached files larger than this are not read (the site's predictions of 10,000 pairs are about
// 5 MB).
constexpr std::uintmax_t kMaxEntryBytes = 64u << 20;

// The hex of the GNU build-ID note in the main program's PT_NOTE segments (ELF gABI, "Note
// Section"; the note's type is NT_GNU_BUILD_ID, its owner "GNU").
int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
  auto* out = static_cast<std::string*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + segment.p_vaddr);
    const unsigned char* end = at + segment.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
      const unsigned char* name = at + sizeof(ElfW(Nhdr));
      const unsigned char* desc = name + ((note->n_namesz + 3) & ~3u);
      const unsigned char* next = desc + ((note->n_descsz + 3) & ~3u);
      if (next > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::equal(name, name + 4, reinterpret_cast<const unsigned char*>("GNU"))) {
        for (std::size_t k = 0; k < note->n_descsz; ++k) *out += fmt::format("{:02x}", desc[k]);
        return 1;
      }
      at = next;
    }
  }
  return 1;  // only the first object, the main program, is looked at
}

// 64 lowercase hex digits: the only names the cache reads, writes or removes.
bool is_key(std::string_view name) {
  return name.size() == 64 && name.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Removes the least recently used entries beyond kMaxCacheEntries, never `keep`, and temporary
// files over an hour old.
void prune(const fs::path& dir, const fs::path& keep) {
  std::error_code ec;
  const fs::file_time_type now = fs::file_time_type::clock::now();
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec)) continue;
    fs::file_time_type written = it->last_write_time(entry_ec);
    if (entry_ec) continue;
    std::size_t tmp = name.find(".json.tmp-");
    if (tmp != std::string::npos && is_key(name.substr(0, tmp))) {
      if (now - written > std::chrono::hours(1)) fs::remove(it->path(), entry_ec);
      continue;
    }
    if (name.size() == 69 && name.ends_with(".json") && is_key(name.substr(0, 64)) &&
        it->path() != keep)
      entries.emplace_back(written, it->path());
  }
  if (entries.size() + 1 <= kMaxCacheEntries) return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + kMaxCacheEntries < entries.size() + 1; ++i)
    fs::remove(entries[i].second, ec);
}

}  // namespace

std::optional<std::string> result_cache_dir() {
  if (const char* dir = std::getenv("OPENRECIPES_CACHE_DIR")) {
    if (*dir == '\0') return std::nullopt;
    return std::string(dir);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return (fs::path(xdg) / "openrecipes").string();
  if (const char* home = std::getenv("HOME"); home && *home == '/')
    return (fs::path(home) / ".cache" / "openrecipes").string();
  return std::nullopt;
}

std::string executable_build_id() {
  static const std::string id = [] {
    std::string hex;
    dl_iterate_phdr(find_build_id, &hex);
    return hex;
  }();
  return id;
}

ResultCache::ResultCache(std::string dir, std::function<bool()> still_current)
    : dir_(std::move(dir)), still_current_(std::move(still_current)) {}

std::optional<nlohmann::json> ResultCache::read(const std::string& key) const {
  if (!is_key(key)) return std::nullopt;
  fs::path path = fs::path(dir_) / (key + ".json");
  std::error_code ec;
  std::uintmax_t size = fs::file_size(path, ec);
  if (ec || size > kMaxEntryBytes || !fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return std::nullopt;
  std::string bytes = text.str();
  if (json_too_deep(bytes)) return std::nullopt;
  nlohmann::json entry = nlohmann::json::parse(bytes, nullptr, false);
  if (entry.is_discarded() || !entry.is_object() || !entry.contains("key") ||
      !entry.contains("value") || entry["key"] != key)
    return std::nullopt;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // used now: pruned last
  return std::move(entry["value"]);
}

bool ResultCache::write(const std::string& key, const nlohmann::json& value) const {
  if (!is_key(key)) return false;
  try {
    if (still_current_ && !still_current_()) return false;
  } catch (const std::exception&) {
    return false;
  }
  std::error_code ec;
  fs::path dir(dir_);
  fs::create_directories(dir, ec);
  if (ec) return false;
  fs::path path = dir / (key + ".json");
  fs::path staging = dir / fmt::format("{}.json.tmp-{}", key, ::getpid());
  std::string text;
  try {
    text = nlohmann::json{{"key", key}, {"value", value}}.dump();
  } catch (const nlohmann::json::exception&) {
    return false;  // a string that is not UTF-8: nothing to store
  }
  {
    std::ofstream out(staging, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      fs::remove(staging, ec);
      return false;
    }
  }
  fs::rename(staging, path, ec);
  if (ec) {
    fs::remove(staging, ec);
    return false;
  }
  prune(dir, path);
  return true;
}

}  // namespace openrecipes
