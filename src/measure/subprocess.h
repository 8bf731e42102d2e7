// Running a program with an argument vector (fork and execvp, no shell, so no word of a job id,
// path or name is ever re-read as shell syntax) and collecting what it printed.
#pragma once

#include <csignal>
#include <string>
#include <vector>

namespace openrecipes {

/// What a finished program left behind.
struct ProcessResult {
  bool started = false;    ///< false when the program could not be executed (see `error`)
  int exit_code = -1;      ///< its exit status; 128 + N when signal N ended it
  std::string out;         ///< standard output, whole
  std::string err;         ///< standard error, whole
  std::string error;       ///< why it did not start (execvp's errno text)
  bool timed_out = false;  ///< it ran past the time limit and was killed (SIGKILL)
  bool stopped = false;    ///< the caller's stop flag was set and it was killed (SIGKILL)
};

/// Runs `argv` (argv[0] is looked up on PATH) with standard input from /dev/null, waits for it
/// and returns its exit status and output. With `timeout_s` > 0 a program still running after
/// that many seconds is killed (SIGKILL) and reported timed_out, with what it printed so far;
/// with `stop` it is killed and reported stopped once `*stop` is non-zero (looked at every
/// 100 ms; a signal handler sets it). Never throws for a program that fails or is missing.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_s = 0,
                          const volatile std::sig_atomic_t* stop = nullptr);

/// True when `program` names an executable file, directly (with a '/') or on PATH.
bool program_on_path(const std::string& program);

}  // namespace openrecipes
