// Training logs read into per-step records (and the settings and memory reports they print):
// Megatron-LM's `iteration N/ M | ... elapsed time per
// iteration (ms): ... | lm loss: ...` lines, Megatron-Bridge's (the same iteration lines, each
// after a `Step Time : ...s GPU utilization: ...` line), and slime's `step N: {...}` and
// `perf N: {...}` dictionaries.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/problem.h"
#include "runs/log_settings.h"
#include "runs/memory_report.h"

namespace openrecipes {

/// The log formats read.
enum class LogFormat { kMegatronLm, kMegatronBridge, kSlime };

/// "Megatron-LM", "Megatron-Bridge" or "slime".
std::string log_format_name(LogFormat format);

/// One training step as the log states it.
struct StepRecord {
  std::int64_t step = 0;               ///< 0-based; Megatron's `iteration N` ends step N-1
  std::optional<double> step_time_s;   ///< seconds for this step
  std::optional<double> loss;          ///< lm loss (Megatron) or train/loss (slime)
  std::optional<std::int64_t> tokens;  ///< tokens trained, when the log prints them
  std::optional<double>
      timestamp_s;  ///< when the step line was written, seconds since the epoch (UTC)
  int line = 0;     ///< 1-based line of the record in the log
};

/// A parsed log.
struct TrainingLog {
  std::string path;
  LogFormat format = LogFormat::kMegatronLm;
  std::vector<StepRecord> steps;            ///< sorted by step, one per step
  std::optional<std::int64_t> total_steps;  ///< the `M` of `iteration N/ M`, when printed
  std::string step_time_source;             ///< which printed figure gave step_time_s
  LogSettings settings;            ///< the run settings the log prints (runs/log_settings.h)
  std::vector<RankMemory> memory;  ///< Megatron-LM's memory report lines (runs/memory_report.h)
};

/// Parses `text` (the contents of `path`). Detects the format from the lines themselves. Lines
/// of other kinds are ignored. A log this code cannot read returns nullopt with one Problem
/// (file `path`, the line and column, the field, rule `log.*`): no step line of a known format
/// (naming the formats read, rule `log.format`), a step twice with different values
/// (`log.step`), a number that does not parse (`log.number`, also in a memory report line), a
/// step number out of range.
std::optional<TrainingLog> parse_training_log(std::string_view text, const std::string& path,
                                              Problems& problems);

/// Reads and parses the file at `path` (at most 2 GiB). A file that is missing, not a regular
/// file, unreadable or too large is a Problem of rule `file` (base/yaml_document.h's
/// read_text_file); otherwise as parse_training_log.
std::optional<TrainingLog> read_training_log(const std::string& path, Problems& problems);

/// The first `longest` bytes of `text` for a problem's `found`, each byte outside printable ASCII
/// written as `?` (a log may hold anything).
std::string log_excerpt(std::string_view text, std::size_t longest = 24);

/// Seconds since the epoch of a `YYYY-MM-DD HH:MM:SS[.,fff]` timestamp taken as UTC, or nullopt.
std::optional<double> parse_log_timestamp(std::string_view text);

}  // namespace openrecipes
