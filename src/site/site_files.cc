#include "site/site_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>
#include <sys/stat.h>
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

// True when `previous` is a regular file holding exactly `bytes` (read through one descriptor,
// never following a symbolic link), so that it can be linked instead of written again.
bool holds_exactly(const fs::path& previous, const std::string& bytes) {
  int fd = ::open(previous.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat status {};
  bool same = ::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) &&
              static_cast<std::size_t>(status.st_size) == bytes.size();
  char buffer[65536];
  for (std::size_t done = 0; same && done < bytes.size();) {
    ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, bytes.size() - done));
    if (n < 0 && errno == EINTR) continue;
    same = n > 0 && std::memcmp(buffer, bytes.data() + done, static_cast<std::size_t>(n)) == 0;
    done += n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  ::close(fd);
  return same;
}

// Puts `bytes` at `path`, where nothing is: a hard link to `previous` when that holds the same
// bytes (`previous` empty: no previous site), else a new file. Neither site is ever written in
// place, so sharing the inode is safe. Returns "" or what went wrong.
std::string put_file(const fs::path& path, const fs::path& previous, const std::string& bytes) {
  if (!previous.empty() && holds_exactly(previous, bytes) &&
      ::linkat(AT_FDCWD, previous.c_str(), AT_FDCWD, path.c_str(), 0) == 0) {
    return "";
  }
  return write_file(path, bytes);  // also when the file system cannot link
}

// Removes from `folder` (a recycled site) everything `files` does not hold: files it does not
// list, folders none of them lies in, and anything neither a folder nor a regular file (never
// followed). Returns "" or what went wrong.
std::string prune_tree(const fs::path& folder, const SiteFiles& files,
                       const std::set<std::string>& folders) {
  std::vector<fs::path> unwanted;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string relative = it->path().lexically_relative(folder).generic_string();
    fs::file_status status = it->symlink_status(ec);
    if (ec) break;
    bool wanted = fs::is_directory(status) ? folders.count(relative) > 0
                  : fs::is_regular_file(status)
                      ? files.count(relative) > 0 || relative == kSiteMarker
                      : false;
    if (wanted) continue;
    unwanted.push_back(it->path());
    if (fs::is_directory(status)) it.disable_recursion_pending();
  }
  if (ec) return fmt::format("cannot read {}: {}", folder.string(), ec.message());
  for (const fs::path& path : unwanted) {
    fs::remove_all(path, ec);
    if (ec) return fmt::format("cannot remove {}: {}", path.string(), ec.message());
  }
  return "";
}

// Makes `folder` hold exactly `files` and the marker. `folder` is new, or `recycled`: an earlier
// site whose folders and unchanged files are kept and whose other files are replaced. New files
// are linked from `previous` (the site being replaced, or empty) where it holds the same bytes.
//
// Why recycle and link: on this project's development machines (ext4 without a journal),
// creating an inode within minutes of deleting others scans past every recently deleted one
// (fs/ext4/ialloc.c, find_inode_bit and recently_deleted), so rebuilding a 10,000-recipe site's
// 23,000 files and 4,500 folders right after removing the last build's took most of a build's
// time, and more with each build. An unchanged site now creates and frees no inode at all.
std::string write_tree(const fs::path& folder, bool recycled, const fs::path& previous,
                       const SiteFiles& files) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) return fmt::format("cannot create {}: {}", folder.string(), ec.message());
  // The files grouped by folder, each folder created once; then one folder at a time per core.
  // Two threads creating files in one folder wait on its lock (the kernel spins on it: a third
  // of a 10,000-recipe build's CPU when files were handed out one by one).
  std::map<std::string, std::vector<const SiteFiles::value_type*>> by_folder;
  std::set<std::string> folders;
  for (const auto& entry : files) {
    std::size_t slash = entry.first.rfind('/');
    std::string parent = slash == std::string::npos ? "" : entry.first.substr(0, slash);
    by_folder[parent].push_back(&entry);
    for (std::size_t at = parent.size(); at != std::string::npos && at > 0;
         at = parent.rfind('/', at - 1)) {
      if (!folders.insert(parent.substr(0, at)).second) break;  // its parents are in, too
    }
  }
  if (recycled) {
    if (std::string error = prune_tree(folder, files, folders); !error.empty()) return error;
  }
  std::vector<const std::vector<const SiteFiles::value_type*>*> groups;
  for (const auto& [relative, entries] : by_folder) {
    if (!relative.empty()) fs::create_directories(folder / relative, ec);
    if (ec) return fmt::format("cannot create {}: {}", (folder / relative).string(), ec.message());
    groups.push_back(&entries);
  }
  if (!fs::exists(folder / kSiteMarker, ec)) {
    if (std::string error = write_file(folder / kSiteMarker, ""); !error.empty()) return error;
  }
  std::vector<std::string> errors(groups.size());
  parallel_for(groups.size(), [&](std::size_t g) {
    for (const auto* entry : *groups[g]) {
      fs::path path = folder / entry->first;
      if (recycled) {
        if (holds_exactly(path, entry->second)) continue;
        if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
          errors[g] = fmt::format("cannot replace {}: {}", path.string(), std::strerror(errno));
          return;
        }
      }
      errors[g] =
          put_file(path, previous.empty() ? previous : previous / entry->first, entry->second);
      if (!errors[g].empty()) return;
    }
  });
  for (const std::string& error : errors) {
    if (!error.empty()) return error;
  }
  return "";
}

// The earlier site kept beside `out` for the next build: `.<out's name>.spare`.
fs::path spare_sibling(const fs::path& out) {
  return out.parent_path() / fmt::format(".{}.{}", out.filename().string(), kSiteSpareTag);
}

// Claims the spare site, if there is one that a build wrote, by renaming it to `staging` (one
// rename: two builds never claim the same spare). Returns whether `staging` now holds it.
bool claim_spare(const fs::path& out, const fs::path& staging) {
  fs::path spare = spare_sibling(out);
  std::error_code ec;
  if (fs::is_symlink(spare, ec) || !fs::is_directory(spare, ec) ||
      !fs::is_regular_file(fs::symlink_status(spare / kSiteMarker, ec))) {
    return false;
  }
  return ::rename(spare.c_str(), staging.c_str()) == 0;
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
  bool recycled = claim_spare(out, staging);
  std::string error = write_tree(staging, recycled, exists ? out : fs::path(), files);
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
  // `staging` now holds the old site: kept as the spare the next build updates, unless another
  // build's spare is there already.
  if (::rename(staging.c_str(), spare_sibling(out).c_str()) == 0) return;
  fs::remove_all(staging, ec);
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
