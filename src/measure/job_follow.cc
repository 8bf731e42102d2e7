#include "measure/job_follow.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <thread>

namespace openrecipes {
namespace {

// The last 64 KiB of the file: enough for the latest step line of any log.
std::string log_tail(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff from = size > 65536 ? size - 65536 : 0;
  in.seekg(from);
  std::string text(static_cast<std::size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// The digits at `at` in `line` (blanks skipped first), or empty.
std::string number_at(std::string_view line, std::size_t at) {
  while (at < line.size() && line[at] == ' ') ++at;
  std::size_t end = at;
  while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
  return std::string(line.substr(at, end - at));
}

}  // namespace

std::optional<std::string> latest_step_in_log(std::string_view log_text) {
  std::size_t end = log_text.size();
  while (end > 0) {
    std::size_t start = log_text.rfind('\n', end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view line = log_text.substr(start, end - start);
    end = start == 0 ? 0 : start - 1;
    if (std::size_t at = line.find("iteration ");
        at != std::string_view::npos && line.find(" | ") != std::string_view::npos) {
      std::string n = number_at(line, at + 10);
      std::size_t slash = line.find('/', at);
      std::string m = slash == std::string_view::npos ? "" : number_at(line, slash + 1);
      if (!n.empty()) return m.empty() ? "iteration " + n : fmt::format("iteration {}/{}", n, m);
    }
    if (line.rfind("step ", 0) == 0 && line.find(": {") != std::string_view::npos) {
      std::string n = number_at(line, 5);
      if (!n.empty()) return "step " + n;
    }
  }
  return std::nullopt;
}

FollowOutcome follow_job(std::int64_t job_id, const std::string& log_path,
                         const std::function<std::optional<JobRecord>()>& query,
                         const std::function<void(const JobProgress&)>& progress,
                         const FollowOptions& options) {
  using clock = std::chrono::steady_clock;
  FollowOutcome outcome;
  auto last_known = clock::now();
  auto stop_requested = [&] { return options.stop && *options.stop != 0; };
  while (true) {
    if (stop_requested()) {
      outcome.stopped = true;
      return outcome;
    }
    std::optional<JobRecord> job = query();
    if (job) {
      outcome.job = job;
      last_known = clock::now();
    } else if (std::chrono::duration<double>(clock::now() - last_known).count() >
               options.lost_after_s) {
      outcome.lost = true;
      return outcome;
    }
    JobProgress seen{job_id, job ? job->state : "UNKNOWN",
                     latest_step_in_log(log_tail(log_path)).value_or("")};
    progress(seen);
    if (job && is_final_job_state(job->state)) return outcome;
    // Sleep in short slices so that a stop request is answered within 0.1 s.
    auto wake = clock::now() + std::chrono::duration<double>(options.poll_interval_s);
    while (clock::now() < wake) {
      if (stop_requested()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

}  // namespace openrecipes
