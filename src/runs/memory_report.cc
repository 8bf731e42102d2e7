#include "runs/memory_report.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

#include "base/ascii.h"
#include "runs/training_log.h"

namespace openrecipes {
namespace {

// The field a label names: `| max allocated: ` -> `max allocated`.
std::string report_field(std::string_view label) {
  return std::string(label.substr(2, label.size() - 4));
}

// Into `value`, the number after `label` in `line` (from `from`), ending at ' ', '|' or the
// line's end. Returns false with a Problem when the label is absent or what follows is not a
// finite number of 0 or more.
bool figure_after(std::string_view line, std::size_t from, std::string_view label, int line_number,
                  const std::string& path, double& value, Problems& problems) {
  std::size_t at = line.find(label, from);
  if (at == std::string_view::npos) {
    problems.push_back({path,
                        {line_number, 0},
                        report_field(label),
                        "log.number",
                        "a memory report line without this figure",
                        std::string(label),
                        "nothing"});
    return false;
  }
  std::size_t k = at + label.size();
  while (k < line.size() && line[k] == ' ') ++k;
  std::string piece(line.substr(k, std::min<std::size_t>(32, line.size() - k)));
  char* end = nullptr;
  value = std::strtod(piece.c_str(), &end);
  std::size_t used = static_cast<std::size_t>(end - piece.c_str());
  bool ends = used == piece.size() || piece[used] == ' ' || piece[used] == '|';
  if (used == 0 || !ends || !std::isfinite(value) || value < 0) {
    std::string found = log_excerpt(std::string_view(piece).substr(0, piece.find(" |")));
    problems.push_back({path,
                        {line_number, static_cast<int>(k) + 1},
                        report_field(label),
                        "log.number",
                        "not a number",
                        "a number of MB, 0 or more",
                        "'" + found + "'"});
    return false;
  }
  return true;
}

// R of `[Rank R]`, or nullopt.
std::optional<int> rank_of(std::string_view line) {
  std::size_t at = line.find("[Rank ");
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t k = at + 6, digits = k;
  while (k < line.size() && ascii_digit(line[k])) ++k;
  if (k == digits || k - digits > 7 || k >= line.size() || line[k] != ']') return std::nullopt;
  return std::atoi(std::string(line.substr(digits, k - digits)).c_str());
}

}  // namespace

bool read_memory_line(std::string_view line, int line_number, const std::string& path,
                      std::vector<RankMemory>& reports, Problems& problems) {
  std::size_t memory = line.find(" memory (MB) | allocated: ");
  if (memory == std::string_view::npos) return true;
  std::optional<int> rank = rank_of(line.substr(0, memory));
  if (!rank) return true;
  RankMemory report;
  report.rank = *rank;
  report.line = line_number;
  std::size_t after = line.find("(after ");
  if (after != std::string_view::npos && after < memory) {
    std::size_t k = after + 7, digits = k;
    while (k < memory && ascii_digit(line[k])) ++k;
    if (k > digits && k - digits <= 9)
      report.after_iterations =
          std::strtoll(std::string(line.substr(digits, k - digits)).c_str(), nullptr, 10);
  }
  bool read = figure_after(line, memory, "| allocated: ", line_number, path, report.allocated_mib,
                           problems) &&
              figure_after(line, memory, "| max allocated: ", line_number, path,
                           report.max_allocated_mib, problems) &&
              figure_after(line, memory, "| reserved: ", line_number, path, report.reserved_mib,
                           problems) &&
              figure_after(line, memory, "| max reserved: ", line_number, path,
                           report.max_reserved_mib, problems);
  if (read) reports.push_back(report);
  return read;
}

std::optional<MemoryPeak> memory_peak(const std::vector<RankMemory>& reports) {
  if (reports.empty()) return std::nullopt;
  constexpr double kBytesPerMib = 1024.0 * 1024.0;
  MemoryPeak peak;
  std::set<int> ranks;
  for (const RankMemory& r : reports) {
    double allocated = r.max_allocated_mib * kBytesPerMib / 1e9;
    double reserved = r.max_reserved_mib * kBytesPerMib / 1e9;
    if (peak.lines == 0 || allocated > peak.max_allocated_gb) {
      peak.max_allocated_gb = allocated;
      peak.allocated_rank = r.rank;
      peak.allocated_line = r.line;
    }
    if (peak.lines == 0 || reserved > peak.max_reserved_gb) {
      peak.max_reserved_gb = reserved;
      peak.reserved_rank = r.rank;
      peak.reserved_line = r.line;
    }
    ++peak.lines;
    ranks.insert(r.rank);
  }
  peak.ranks = static_cast<int>(ranks.size());
  return peak;
}

std::string memory_peak_comment(const std::optional<MemoryPeak>& peak) {
  if (!peak) {
    return "# peak memory per GPU: the log prints no memory report (Megatron-LM's `[Rank N] "
           "(after N iterations) memory (MB) | ...` lines)\n";
  }
  return fmt::format(
      "# peak memory per GPU (Megatron-LM memory report, {} line{} from {} rank{}): max allocated "
      "{:.2f} GB (rank {}, line {}), max reserved {:.2f} GB (rank {}, line {})\n",
      peak->lines, peak->lines == 1 ? "" : "s", peak->ranks, peak->ranks == 1 ? "" : "s",
      peak->max_allocated_gb, peak->allocated_rank, peak->allocated_line, peak->max_reserved_gb,
      peak->reserved_rank, peak->reserved_line);
}

nlohmann::ordered_json memory_peak_json(const std::optional<MemoryPeak>& peak) {
  if (!peak) return nullptr;
  return {{"max_allocated_gb", peak->max_allocated_gb},
          {"max_allocated_rank", peak->allocated_rank},
          {"max_allocated_line", peak->allocated_line},
          {"max_reserved_gb", peak->max_reserved_gb},
          {"max_reserved_rank", peak->reserved_rank},
          {"max_reserved_line", peak->reserved_line},
          {"report_lines", peak->lines},
          {"ranks", peak->ranks}};
}

}  // namespace openrecipes
