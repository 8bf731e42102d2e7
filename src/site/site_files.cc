#include "site/site_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

fs::path sibling(const fs::path& out, const std::string& tag) {
  std::random_device device;
  return out.parent_path() / fmt::format(".{}.{}-{:08x}", out.filename().string(), tag, device());
}

std::string write_tree(const fs::path& folder, const SiteFiles& files) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return fmt::format("cannot create {}: {}", folder.string(), ec.message());
  SiteFiles all = files;
  all[kSiteMarker] = "";
  for (const auto& [relative, bytes] : all) {
    fs::path path = folder / relative;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return fmt::format("cannot write {}", path.string());
  }
  return "";
}

}  // namespace

std::string write_site_atomically(const fs::path& out_argument, const SiteFiles& files) {
  std::error_code ec;
  fs::path out = fs::absolute(out_argument, ec).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  bool exists = fs::exists(out, ec);
  if (exists) {
    if (!fs::is_directory(out, ec)) return fmt::format("{} exists and is not a folder", out.string());
    if (!fs::is_empty(out, ec) && !fs::exists(out / kSiteMarker, ec)) {
      return fmt::format(
          "refusing to replace {}: it is not a site built by openrecipes (no {} in it)",
          out.string(), kSiteMarker);
    }
  }
  fs::path staging = sibling(out, "new");
  std::string error = write_tree(staging, files);
  if (!error.empty()) {
    fs::remove_all(staging, ec);
    return error;
  }
  if (!exists) {
    if (::rename(staging.c_str(), out.c_str()) != 0) {
      error = fmt::format("cannot move the new site into {}: {}", out.string(), std::strerror(errno));
      fs::remove_all(staging, ec);
      return error;
    }
    return "";
  }
  // One atomic swap: readers see the old site or the new one, never a mix.
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, out.c_str(), RENAME_EXCHANGE) != 0) {
    error = fmt::format("cannot swap the new site into {}: {}", out.string(), std::strerror(errno));
    fs::remove_all(staging, ec);
    return error;
  }
  fs::remove_all(staging, ec);  // now the old site
  return "";
}

std::vector<SiteDifference> compare_site(const fs::path& out, const SiteFiles& files) {
  SiteFiles expected = files;
  expected[kSiteMarker] = "";
  std::vector<SiteDifference> differences;
  std::set<std::string> present;
  std::error_code ec;
  if (fs::is_directory(out, ec)) {
    for (fs::recursive_directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      std::string relative = fs::relative(it->path(), out, ec).generic_string();
      present.insert(relative);
      auto found = expected.find(relative);
      if (found == expected.end()) {
        differences.push_back({SiteDifference::Kind::kExtra, relative});
      } else if (read_all(it->path()) != found->second) {
        differences.push_back({SiteDifference::Kind::kStale, relative});
      }
    }
  }
  for (const auto& [relative, bytes] : expected) {
    if (!present.count(relative)) differences.push_back({SiteDifference::Kind::kMissing, relative});
  }
  std::sort(differences.begin(), differences.end(),
            [](const SiteDifference& a, const SiteDifference& b) { return a.path < b.path; });
  return differences;
}

}  // namespace openrecipes
