// Removes a temporary file when the process is interrupted while writing it, so that Ctrl-C or a
// scheduler's SIGTERM never leaves half a file behind; and, since SIGKILL cannot be caught, lets
// the next run remove what a killed one left.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace openrecipes {

/// While alive, SIGINT, SIGTERM and SIGHUP first unlink `path`, then end the process as the signal
/// would have (default action, re-raised). One guard at a time; the previous handlers come back on
/// destruction. Paths over 4,095 bytes are not guarded.
class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::string& path);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

 private:
  bool armed_ = false;
};

/// A temporary file or folder that a process left behind and that is now removed.
struct StaleTemporary {
  std::filesystem::path path;
  long pid = 0;         ///< the process that wrote it, named in its file name
  bool folder = false;  ///< a folder (removed with everything in it), else a file
};

/// Removes the temporaries that killed runs left beside `target`: entries of target's folder
/// named `.<target's name>.<tag>-<PID>`, optionally followed by `-` and anything (the names
/// RowsFileWriter::finish, tag "tmp", and write_site_atomically, tag "new", give them), whose
/// process is gone: kill(PID, 0) fails with ESRCH. A live process's entry (a concurrent run, or a
/// PID reused) is left alone, and so is anything that is neither a regular file nor a folder
/// (symbolic links are not followed). Returns what it removed; an entry it cannot remove is
/// left and not returned.
std::vector<StaleTemporary> remove_stale_temporaries(const std::filesystem::path& target,
                                                     const std::string& tag);

}  // namespace openrecipes
