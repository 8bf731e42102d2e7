// Megatron-LM's memory report lines: `[Rank R] (after N iterations) memory (MB) | allocated: A |
// max allocated: M | reserved: S | max reserved: X` (megatron/training/utils.py `report_memory`,
// called by megatron/training/training.py `training_log` after the first iterations; printed by
// each rank of the first data-parallel replica). MB there is MiB (1024 x 1024 bytes).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/problem.h"

namespace openrecipes {

/// One memory report line.
struct RankMemory {
  int rank = 0;
  std::optional<std::int64_t> after_iterations;  ///< the `(after N iterations)`, when printed
  double allocated_mib = 0;
  double max_allocated_mib = 0;
  double reserved_mib = 0;
  double max_reserved_mib = 0;
  int line = 0;  ///< 1-based line in the log
};

/// The peak over every report line of a log.
struct MemoryPeak {
  double max_allocated_gb = 0;  ///< max over lines of `max allocated`, GB (1e9 bytes)
  double max_reserved_gb = 0;   ///< max over lines of `max reserved`, GB (1e9 bytes)
  int allocated_rank = 0;       ///< the rank and line of the largest `max allocated`
  int allocated_line = 0;
  int reserved_rank = 0;  ///< the rank and line of the largest `max reserved`
  int reserved_line = 0;
  int lines = 0;  ///< report lines read
  int ranks = 0;  ///< distinct ranks among them
};

/// Reads `line` (1-based `line_number`, of the log at `path`) when it is a memory report line
/// into `reports`. Returns false with one Problem (rule `log.number`, the field named) when a
/// figure does not parse; true otherwise (also for lines of other kinds).
bool read_memory_line(std::string_view line, int line_number, const std::string& path,
                      std::vector<RankMemory>& reports, Problems& problems);

/// The peak of `reports` (MiB to GB: x 1,048,576 / 1e9), or nullopt when there are none.
std::optional<MemoryPeak> memory_peak(const std::vector<RankMemory>& reports);

/// One `# peak memory per GPU ...` comment line for score's output: the peak max allocated and
/// max reserved in GB to 2 decimals with their rank and line, or that the log prints no report.
std::string memory_peak_comment(const std::optional<MemoryPeak>& peak);

/// The peak as JSON (GB unrounded, ranks, lines), or null.
nlohmann::ordered_json memory_peak_json(const std::optional<MemoryPeak>& peak);

}  // namespace openrecipes
