// A one-line progress display on standard error, redrawn in place, shown only on a terminal.
#pragma once

#include <chrono>
#include <string>

namespace openrecipes::cli {

/// Redraws at most 5 times a second; silent when standard error is not a terminal.
class ProgressLine {
 public:
  ProgressLine();
  /// Shows `text` (prefixed with the seconds elapsed) unless the last redraw was under 0.2 s ago;
  /// `force` redraws anyway.
  void show(const std::string& text, bool force = false);
  /// Clears the line (call before printing results).
  void clear();
  /// Seconds since construction.
  double seconds() const;

 private:
  bool terminal_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace openrecipes::cli
