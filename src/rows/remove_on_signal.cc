#include "rows/remove_on_signal.h"

#include <unistd.h>

#include <csignal>
#include <cstring>

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

}  // namespace openrecipes
