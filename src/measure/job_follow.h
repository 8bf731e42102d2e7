// Following a submitted job to its end: its state from Slurm and the latest training step from
// its log, polled until the state is final or the caller asks to stop.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "measure/slurm_client.h"

namespace openrecipes {

/// The latest training step a (growing) log shows, as the log says it: Megatron-LM's
/// `iteration N/ M` or slime's `step N`; nullopt before the first step line.
std::optional<std::string> latest_step_in_log(std::string_view log_text);

/// One observation while following.
struct JobProgress {
  std::int64_t job_id = 0;
  std::string state;        ///< Slurm's, or "UNKNOWN" while it does not answer
  std::string latest_step;  ///< empty before the first step line
};

/// How to follow.
struct FollowOptions {
  double poll_interval_s = 10;  ///< seconds between polls
  double lost_after_s = 300;    ///< give up after Slurm has not known the job this long
  const volatile std::sig_atomic_t* stop =
      nullptr;  ///< non-zero: stop now (a signal handler sets it)
};

/// How following ended.
struct FollowOutcome {
  std::optional<JobRecord> job;  ///< the last record seen (final unless stopped or lost)
  bool stopped = false;          ///< *options.stop became non-zero
  bool lost = false;             ///< Slurm stopped knowing the job
};

/// Polls `query` (the job's record; nullopt while Slurm does not answer) and the log at
/// `log_path` every poll interval, calls `progress` on each poll, and returns once the state is
/// final, `*stop` is set, or the job has been unknown for `lost_after_s`.
FollowOutcome follow_job(std::int64_t job_id, const std::string& log_path,
                         const std::function<std::optional<JobRecord>()>& query,
                         const std::function<void(const JobProgress&)>& progress,
                         const FollowOptions& options);

}  // namespace openrecipes
