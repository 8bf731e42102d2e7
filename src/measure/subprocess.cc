#include "measure/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace openrecipes {
namespace {

void close_both(int fds[2]) {
  if (fds[0] >= 0) ::close(fds[0]);
  if (fds[1] >= 0) ::close(fds[1]);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s,
                          const volatile std::sig_atomic_t* stop) {
  ProcessResult result;
  if (argv.empty()) {
    result.error = "no program given";
    return result;
  }
  std::vector<char*> args;
  for (const std::string& word : argv) args.push_back(const_cast<char*>(word.c_str()));
  args.push_back(nullptr);
  int out[2] = {-1, -1}, err[2] = {-1, -1}, exec_error[2] = {-1, -1};
  if (::pipe(out) != 0 || ::pipe(err) != 0 || ::pipe2(exec_error, O_CLOEXEC) != 0) {
    result.error = std::strerror(errno);
    close_both(out), close_both(err), close_both(exec_error);
    return result;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    result.error = std::strerror(errno);
    close_both(out), close_both(err), close_both(exec_error);
    return result;
  }
  if (pid == 0) {
    int null_in = ::open("/dev/null", O_RDONLY);
    if (null_in >= 0) ::dup2(null_in, STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    ::execvp(args[0], args.data());
    int code = errno;
    [[maybe_unused]] ssize_t written = ::write(exec_error[1], &code, sizeof code);
    ::_exit(127);
  }
  ::close(out[1]), ::close(err[1]), ::close(exec_error[1]);
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  char buffer[65536];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (open_count > 0) {
    int wait_ms = -1;
    if (timeout_s > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        // Killed, and its pipes left behind: a child it started may still hold them open.
        ::kill(pid, SIGKILL);
        result.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<std::int64_t>(left.count() + 1, 1 << 30));
    }
    if (stop) {
      if (*stop != 0) {
        ::kill(pid, SIGKILL);
        result.stopped = true;
        break;
      }
      wait_ms = wait_ms < 0 ? 100 : std::min(wait_ms, 100);
    }
    int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) ::close(fd.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int code = 0;
  ssize_t n = ::read(exec_error[0], &code, sizeof code);
  ::close(exec_error[0]);
  if (n == static_cast<ssize_t>(sizeof code)) {
    result.error = std::strerror(code);
    return result;
  }
  result.started = true;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

bool program_on_path(const std::string& program) {
  namespace fs = std::filesystem;
  auto executable = [](const fs::path& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) return executable(program);
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (executable(fs::path(dir.empty() ? "." : dir) / program)) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace openrecipes
