#include "cli/progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

namespace openrecipes::cli {

ProgressLine::ProgressLine()
    : terminal_(::isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()), last_() {}

double ProgressLine::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::show(const std::string& text, bool force) {
  if (!terminal_) return;
  auto now = std::chrono::steady_clock::now();
  if (!force && shown_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  shown_ = true;
  fmt::print(stderr, "\r\033[K{:6.1f} s  {}", seconds(), text);
  std::fflush(stderr);
}

void ProgressLine::clear() {
  if (!terminal_ || !shown_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace openrecipes::cli
