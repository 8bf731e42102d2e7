#include "catalog/catalog_digest.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "text/sha256.h"

namespace openrecipes {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxDepth = 32;

// Feeds `relative` (a file, a folder or nothing) under `root` into `digest`; false when something
// cannot be read.
bool feed(const fs::path& root, const fs::path& relative, int depth, Sha256Stream& digest) {
  if (depth > kMaxDepth) return false;
  std::error_code ec;
  fs::path path = root / relative;
  std::string name = relative.generic_string();
  // A link is an input as a link, then followed: the recipe loader does not enter a linked
  // folder under recipes/ while a model's config is read through one, so a folder swapped for a
  // link to a copy of it must change the digest.
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    fs::path target = fs::read_symlink(path, ec);
    if (ec) return false;
    std::string line = fmt::format("link {} {}\n", name, target.string());
    digest.update(line.data(), line.size());
  }
  fs::file_status status = fs::status(path, ec);
  if (fs::is_directory(status)) {
    std::vector<fs::path> children;
    for (fs::directory_iterator it(path, ec), end; it != end; it.increment(ec)) {
      if (ec) return false;
      children.push_back(it->path().filename());
    }
    if (ec) return false;
    std::sort(children.begin(), children.end());
    std::string header = fmt::format("dir {}\n", name);
    digest.update(header.data(), header.size());
    for (const fs::path& child : children) {
      if (!feed(root, relative / child, depth + 1, digest)) return false;
    }
    return true;
  }
  if (!fs::is_regular_file(status)) {
    // Missing, or something that is not opened (a FIFO would block): its name and kind only.
    std::string line = fmt::format("other {} {}\n", name, static_cast<int>(status.type()));
    digest.update(line.data(), line.size());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string header = fmt::format("file {} {}\n", name, fs::file_size(path, ec));
  if (ec) return false;
  digest.update(header.data(), header.size());
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    digest.update(buffer, static_cast<std::size_t>(in.gcount()));
    if (in.eof()) break;
  }
  return !in.bad();
}

}  // namespace

namespace {

// The digest over the inputs of kCatalogInputs, leaving out `left_out` (nullptr: none).
std::optional<std::string> digest_of_inputs(const fs::path& root, const char* left_out) {
  try {
    Sha256Stream digest;
    for (const char* input : kCatalogInputs) {
      if (left_out && std::string_view(input) == left_out) continue;
      if (!feed(root, input, 0, digest)) return std::nullopt;
    }
    return digest.hex_digest();
  } catch (const std::exception&) {
    return std::nullopt;  // a path the library cannot represent, or memory: do not cache
  }
}

}  // namespace

std::optional<std::string> catalog_inputs_digest(const fs::path& root) {
  return digest_of_inputs(root, nullptr);
}

std::optional<std::string> catalog_context_digest(const fs::path& root) {
  return digest_of_inputs(root, "recipes");
}

}  // namespace openrecipes
