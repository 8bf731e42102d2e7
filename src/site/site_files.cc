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
#include <vector>

#include "base/error.h"
#include "base/parallel_for.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

fs::path staging_sibling(const fs::path& out) {
  std::random_device device;
  return out.parent_path() / fmt::format(".{}.{}-{}-{:08x}", out.filename().string(),
                                         kSiteStagingTag, ::getpid(), device());
}

// What a file that is neither a folder nor a regular file is, in words; "" for those two.
std::string non_regular_kind(fs::file_status status) {
  switch (status.type()) {
    case fs::file_type::regular:
    case fs::file_type::directory:
      return "";
    case fs::file_type::symlink:
      return "a symbolic link";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    default:
      return "not a regular file";
  }
}

// Writes `bytes` to the new file `path` with plain POSIX calls (an ofstream costs more than the
// write for a small page). Returns "" or what went wrong.
std::string write_file(const fs::path& path, const std::string& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fmt::format("cannot write {}: {}", path.string(), std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string error = fmt::format("cannot write {}: {}", path.string(), std::strerror(errno));
      ::close(fd);
      return error;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0)
    return fmt::format("cannot write {}: {}", path.string(), std::strerror(errno));
  return "";
}

std::string write_tree(const fs::path& folder, const SiteFiles& files) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return fmt::format("cannot create {}: {}", folder.string(), ec.message());
  // The folders first, each once (a catalog of thousands of recipes has thousands of files per
  // folder), then the files on every core: creating inodes is most of a large build's time.
  std::set<std::string> folders;
  std::vector<const std::pair<const std::string, std::string>*> entries;
  for (const auto& entry : files) {
    entries.push_back(&entry);
    std::size_t slash = entry.first.rfind('/');
    if (slash != std::string::npos) folders.insert(entry.first.substr(0, slash));
  }
  for (const std::string& relative : folders) {
    fs::create_directories(folder / relative, ec);
    if (ec) return fmt::format("cannot create {}: {}", (folder / relative).string(), ec.message());
  }
  std::string marker_error = write_file(folder / kSiteMarker, "");
  if (!marker_error.empty()) return marker_error;
  std::vector<std::string> errors(entries.size());
  parallel_for(entries.size(), [&](std::size_t i) {
    errors[i] = write_file(folder / entries[i]->first, entries[i]->second);
  });
  for (const std::string& error : errors) {
    if (!error.empty()) return error;
  }
  return "";
}

}  // namespace

void write_site_atomically(const fs::path& out_argument, const SiteFiles& files) {
  std::error_code ec;
  fs::path out = fs::absolute(out_argument, ec).lexically_normal();
  if (out.filename().empty()) out = out.parent_path();
  if (fs::is_symlink(out, ec)) {
    throw IoError(out.string(),
                  fmt::format("{} is a symbolic link; give the folder it points to", out.string()));
  }
  bool exists = fs::exists(out, ec);
  if (exists) {
    if (!fs::is_directory(out, ec))
      throw IoError(out.string(), fmt::format("{} exists and is not a folder", out.string()));
    if (!fs::is_empty(out, ec) && !fs::exists(out / kSiteMarker, ec)) {
      throw IoError(
          out.string(),
          fmt::format("refusing to replace {}: it is not a site built by openrecipes (no {} in it)",
                      out.string(), kSiteMarker));
    }
  }
  fs::path staging = staging_sibling(out);
  std::string error = write_tree(staging, files);
  if (!error.empty()) {
    fs::remove_all(staging, ec);
    throw IoError(out.string(), error);
  }
  if (!exists && ::rename(staging.c_str(), out.c_str()) == 0) return;
  // The site exists (or another build created it meanwhile): one atomic swap, so that readers see
  // the old site or the new one, never a mix.
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, out.c_str(), RENAME_EXCHANGE) != 0) {
    error = fmt::format("cannot swap the new site into {}: {}", out.string(), std::strerror(errno));
    fs::remove_all(staging, ec);
    throw IoError(out.string(), error);
  }
  fs::remove_all(staging, ec);  // now the old site
  if (ec || fs::exists(staging)) {
    throw IoError(
        staging.string(),
        fmt::format("the new site is in {}, but the old one could not be removed from {}: {}",
                    out.string(), staging.string(), ec ? ec.message() : "unknown error"));
  }
}

std::vector<SiteDifference> compare_site(const fs::path& out, const SiteFiles& files) {
  // The expected files are `files` and the marker, looked up without copying either.
  const std::string empty;
  auto expected_bytes = [&](const std::string& relative) -> const std::string* {
    if (relative == kSiteMarker) return &empty;
    auto found = files.find(relative);
    return found == files.end() ? nullptr : &found->second;
  };
  std::vector<SiteDifference> differences;
  std::set<std::string> present;
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec)) {
    return {{SiteDifference::Kind::kUnreadable, "", "exists and is not a folder"}};
  }
  if (fs::is_directory(out, ec)) {
    fs::recursive_directory_iterator it(out, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::string relative = it->path().lexically_relative(out).generic_string();
      std::error_code entry_ec;
      fs::file_status status = it->symlink_status(entry_ec);  // lstat: opens nothing
      if (entry_ec) {
        differences.push_back({SiteDifference::Kind::kUnreadable, relative, entry_ec.message()});
        continue;
      }
      const std::string* found = expected_bytes(relative);
      if (std::string kind = non_regular_kind(status); !kind.empty()) {
        if (found) present.insert(relative);
        differences.push_back(
            {found ? SiteDifference::Kind::kStale : SiteDifference::Kind::kExtra, relative, kind});
        continue;
      }
      if (fs::is_directory(status)) continue;
      present.insert(relative);
      if (!found) {
        differences.push_back({SiteDifference::Kind::kExtra, relative, ""});
        continue;
      }
      std::ifstream in(it->path(), std::ios::binary);
      if (!in) {
        differences.push_back({SiteDifference::Kind::kUnreadable, relative, std::strerror(errno)});
        continue;
      }
      std::stringstream buffer;
      buffer << in.rdbuf();
      if (buffer.str() != *found)
        differences.push_back({SiteDifference::Kind::kStale, relative, ""});
    }
    if (ec) {
      std::string where =
          it == end ? std::string() : it->path().lexically_relative(out).generic_string();
      differences.push_back({SiteDifference::Kind::kUnreadable, where, ec.message()});
      return differences;  // a partial walk cannot say what is missing
    }
  }
  if (!present.count(kSiteMarker))
    differences.push_back({SiteDifference::Kind::kMissing, kSiteMarker, ""});
  for (const auto& [relative, bytes] : files) {
    if (!present.count(relative))
      differences.push_back({SiteDifference::Kind::kMissing, relative, ""});
  }
  std::sort(differences.begin(), differences.end(),
            [](const SiteDifference& a, const SiteDifference& b) { return a.path < b.path; });
  return differences;
}

}  // namespace openrecipes
