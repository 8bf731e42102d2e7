#include "rows/remove_on_signal.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>

#include "base/ascii.h"

namespace openrecipes {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
char g_path[4096];
struct sigaction g_previous[3];

// Async-signal-safe: unlink, restore the default action, re-raise.
extern "C" void remove_and_reraise(int signal_number) {
  ::unlink(g_path);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

RemoveOnSignal::RemoveOnSignal(const std::string& path) {
  if (path.size() >= sizeof g_path) return;
  std::memcpy(g_path, path.c_str(), path.size() + 1);
  struct sigaction action {};
  action.sa_handler = remove_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &g_previous[i]);
  armed_ = true;
}

RemoveOnSignal::~RemoveOnSignal() {
  if (!armed_) return;
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
}

namespace {

// The PID in `rest`, the part of a name after its `.<name>.<tag>-` prefix: digits, then the end
// or '-'. 0 when `rest` is not that.
long pid_in_name(const std::string& rest) {
  std::size_t digits = 0;
  while (digits < rest.size() && ascii_digit(rest[digits])) ++digits;
  if (digits == 0 || digits > 9) return 0;  // PIDs stay below 2^22 (proc(5), pid_max)
  if (digits < rest.size() && rest[digits] != '-') return 0;
  return std::stol(rest.substr(0, digits));
}

}  // namespace

std::vector<StaleTemporary> remove_stale_temporaries(const std::filesystem::path& target,
                                                     const std::string& tag) {
  namespace fs = std::filesystem;
  fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string prefix = "." + target.filename().string() + "." + tag + "-";
  std::vector<StaleTemporary> removed;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.starts_with(prefix)) continue;
    long pid = pid_in_name(name.substr(prefix.size()));
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code entry_ec;
    fs::file_status status = it->symlink_status(entry_ec);
    bool is_folder = fs::is_directory(status);
    if (entry_ec || (!is_folder && !fs::is_regular_file(status))) continue;
    if (is_folder) {
      fs::remove_all(it->path(), entry_ec);
    } else {
      fs::remove(it->path(), entry_ec);
    }
    if (!entry_ec) removed.push_back({it->path(), pid, is_folder});
  }
  return removed;
}

}  // namespace openrecipes
