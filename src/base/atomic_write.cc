#include "base/atomic_write.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace openrecipes {

bool write_text_atomically(const std::string& path, const std::string& text,
                           const std::string& field, Problems& problems) {
  namespace fs = std::filesystem;
  auto fail = [&](std::string message, std::string expected, std::string found) {
    problems.push_back(
        {path, {}, field, "io", std::move(message), std::move(expected), std::move(found)});
    return false;
  };
  // The rename would replace whatever is at `path`: a device, a FIFO, a folder or a link is not
  // a file's place (rows build refuses the same).
  std::error_code status_ec;
  fs::file_status status = fs::symlink_status(path, status_ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    return fail("exists and is not a regular file", "a file to write or replace",
                fs::is_symlink(status)     ? "a symbolic link"
                : fs::is_directory(status) ? "a folder"
                                           : "a device, FIFO or socket");
  }
  std::string staging = fmt::format("{}.tmp-{}", path, ::getpid());
  {
    std::ofstream out(staging, std::ios::binary);
    out << text;
    if (!out.flush()) {
      std::string why = std::strerror(errno);
      std::remove(staging.c_str());
      return fail("cannot write the file", "", why);
    }
  }
  std::error_code ec;
  fs::rename(staging, path, ec);
  if (ec) {
    std::remove(staging.c_str());
    return fail("cannot write the file", "", ec.message());
  }
  return true;
}

}  // namespace openrecipes
