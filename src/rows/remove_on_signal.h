// Removes a temporary file when the process is interrupted while writing it, so that Ctrl-C or a
// scheduler's SIGTERM never leaves half a file behind.
#pragma once

#include <string>

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

}  // namespace openrecipes
