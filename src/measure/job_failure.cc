#include "measure/job_failure.h"

#include <algorithm>
#include <array>

namespace openrecipes {
namespace {

// Lines of a log that mean the run ran out of memory (see the header for their sources).
constexpr std::array<std::string_view, 7> kOutOfMemoryMarks = {"OutOfMemoryError",
                                                               "CUDA out of memory",
                                                               "cudaErrorMemoryAllocation",
                                                               "CUDA error: out of memory",
                                                               "Failed to CUDA calloc",
                                                               "oom-kill",
                                                               "Out of memory: Killed process"};

// The line of `text` around byte `at`, trimmed to at most 300 bytes.
std::string line_at(std::string_view text, std::size_t at) {
  std::size_t begin = text.rfind('\n', at);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  std::size_t end = text.find('\n', at);
  if (end == std::string_view::npos) end = text.size();
  std::string line(text.substr(begin, std::min<std::size_t>(end - begin, 300)));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// Words of the line a crashing framework prints about itself: Python's exception line
// (`RuntimeError: ...`), a traceback, a C++ abort, the kernel's signals as bash reports them.
constexpr std::array<std::string_view, 5> kErrorMarks = {"Error", "Exception", "Traceback",
                                                         "Segmentation fault", "Killed"};
// Lines the scheduler and the job script add after the run's own error (srun's "task 0: Exited
// with exit code 1", slurmstepd's, measure's closing line): they say that it failed, not why.
constexpr std::array<std::string_view, 3> kWrapperPrefixes = {
    "srun:", "slurmstepd:", "openrecipes measure:"};

// The last line of `text` that names an error, else its last line, leaving out the wrappers'
// lines; at most 300 bytes, "" for none.
std::string error_line(std::string_view text) {
  std::string fallback;
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t begin = text.rfind('\n', end - 1);
    begin = begin == std::string_view::npos ? 0 : begin + 1;
    std::string_view line = text.substr(begin, end - begin);
    end = begin == 0 ? 0 : begin - 1;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' '))
      line.remove_suffix(1);
    if (line.empty()) continue;
    bool wrapper = std::any_of(kWrapperPrefixes.begin(), kWrapperPrefixes.end(),
                               [&](std::string_view prefix) { return line.rfind(prefix, 0) == 0; });
    if (wrapper) continue;
    if (std::any_of(kErrorMarks.begin(), kErrorMarks.end(), [&](std::string_view mark) {
          return line.find(mark) != std::string_view::npos;
        }))
      return std::string(line.substr(0, 300));
    if (fallback.empty()) fallback = std::string(line.substr(0, 300));
  }
  return fallback;
}

}  // namespace

std::string job_failure_word(JobFailureKind kind) {
  switch (kind) {
    case JobFailureKind::kOutOfMemory:
      return "oom";
    case JobFailureKind::kTimeout:
      return "timeout";
    case JobFailureKind::kNodeFailure:
      return "node_failure";
    case JobFailureKind::kCrash:
      break;
  }
  return "crash";
}

JobFailure classify_job_failure(const JobRecord& job, std::string_view log_tail) {
  const std::string& state = job.state;
  if (state == "NODE_FAIL" || state == "BOOT_FAIL" || state == "PREEMPTED")
    return {JobFailureKind::kNodeFailure, "Slurm: " + state};
  if (state == "TIMEOUT" || state == "DEADLINE")
    return {JobFailureKind::kTimeout, "Slurm: " + state};
  if (state == "OUT_OF_MEMORY") return {JobFailureKind::kOutOfMemory, "Slurm: " + state};
  // The last mark in the log is the one closest to the fatal error.
  std::size_t best = std::string_view::npos;
  for (std::string_view mark : kOutOfMemoryMarks) {
    std::size_t at = log_tail.rfind(mark);
    if (at != std::string_view::npos && (best == std::string_view::npos || at > best)) best = at;
  }
  if (best != std::string_view::npos)
    return {JobFailureKind::kOutOfMemory, line_at(log_tail, best)};
  std::string exit = job.exit_code.empty() ? "" : ", exit code " + job.exit_code;
  std::string last = error_line(log_tail);
  std::string detail = "Slurm: " + (state.empty() ? std::string("UNKNOWN") : state) + exit +
                       (last.empty() ? "" : "; log: " + last);
  if (detail.size() > 300) detail.resize(300);
  return {JobFailureKind::kCrash, detail};
}

}  // namespace openrecipes
