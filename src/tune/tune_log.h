// The tuning log (docs/tune.md, "The state folder"): `tune.jsonl` in the state folder, one JSON
// event a line, appended and flushed to disk as each thing happens (every proposal with its
// prediction and band, every job id, measurement, failure and recalibration). It is the session's
// only state: a `tune` started again on the same folder replays it, re-attaches the jobs still in
// flight and goes on.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"

namespace openrecipes {

/// The most runs a log may name (its `run` numbers): far more than any budget allows, few enough
/// that a log's numbers never size an allocation beyond a few megabytes.
inline constexpr int kMaxLoggedRuns = 10000;

/// One run of the session as the log tells it.
struct LoggedRun {
  int run = 0;                      ///< 1-based, in proposal order
  nlohmann::ordered_json proposal;  ///< the `proposal` event (layout fields, prediction, band)
  std::int64_t job = 0;             ///< 0 until `submitted`
  std::string dir;                  ///< the run's folder (draft, script, log)
  /// "" while in flight (or not submitted), else "measured", "failed" or "cancelled"
  std::string outcome;
  nlohmann::ordered_json result;  ///< the `measured`, `failed` or `cancelled` event
};

/// What replaying the log gives.
struct TuneLogState {
  std::optional<nlohmann::ordered_json> start;  ///< the first `start` event
  std::vector<LoggedRun> runs;                  ///< by run number
  std::optional<nlohmann::ordered_json> stop;   ///< the `stop` event, once the search stopped
  std::int64_t reference_job = 0;               ///< 0 until `reference_submitted`
  std::string reference_dir;
  std::optional<nlohmann::ordered_json> reference_result;  ///< reference_measured or _failed
  std::optional<nlohmann::ordered_json> recipe;            ///< the `recipe` event
  /// The runs submitted whose job has not ended in the log.
  std::vector<const LoggedRun*> in_flight() const;
  /// The measured run with the most tokens/s per GPU (the first of equals), or null.
  const LoggedRun* best_measured() const;
};

/// The log file of a state folder, open for appending.
class TuneLog {
 public:
  /// Opens (creating the folder and the file) `state_dir/tune.jsonl` and replays what it holds,
  /// holding an exclusive lock (flock(2) on `state_dir/tune.lock`) while the TuneLog lives, so
  /// that two sessions never write one folder. A last line without its newline (the process died
  /// while writing it) is cut off the file. Returns nullopt with a Problem (rule `tune.state`)
  /// naming the file and line for a line that is not an event with the fields and types its kind
  /// needs (a `run` from 1 to kMaxLoggedRuns), naming the log when it is not a regular file, or
  /// naming the folder when it cannot be made or another process holds its lock.
  static std::optional<TuneLog> open(const std::string& state_dir, Problems& problems);

  /// Appends `event` (a JSON object with "event") as one line, with "time" (UTC, ISO 8601) added,
  /// and flushes it to disk (fsync) before returning, so a crash loses nothing written. Throws
  /// IoError when the file cannot be written.
  void append(nlohmann::ordered_json event);

  const TuneLogState& state() const { return state_; }
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }
  bool empty() const { return events_ == 0; }

 private:
  void apply(const nlohmann::ordered_json& event);
  std::string dir_, path_;
  std::shared_ptr<int> lock_;  ///< the lock file's descriptor, closed (unlocked) with the last copy
  TuneLogState state_;
  int events_ = 0;
};

/// The current UTC time as `2026-12-03T16:05:00Z`.
std::string utc_time_now();

}  // namespace openrecipes
