#include "runs/training_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>

#include "base/ascii.h"
#include "base/problem.h"
#include "base/yaml_document.h"

namespace openrecipes {
namespace {

// Step numbers beyond this are not a training run's; longer digit runs read as kMaxStep + 1.
constexpr std::int64_t kMaxStep = 100'000'000;

// What is wrong with a log, thrown from deep in a line's parsing and caught by
// parse_training_log, which returns it as a Problem; it never leaves this file.
struct LogFault {
  Problem problem;
};

[[noreturn]] void log_fault(const std::string& path, int line, int column, std::string field,
                            std::string rule, std::string message, std::string expected = "",
                            std::string found = "") {
  throw LogFault{{path,
                  {line, column},
                  std::move(field),
                  std::move(rule),
                  std::move(message),
                  std::move(expected),
                  std::move(found)}};
}

// A number the log printed that is not one: names the file, line, column and field, and what is
// there.
[[noreturn]] void bad_number(const std::string& path, int line, std::size_t at,
                             std::string_view field, std::string_view text) {
  log_fault(path, line, static_cast<int>(at) + 1, std::string(field), "log.number", "not a number",
            "a number", "'" + log_excerpt(text) + "'");
}

// The number starting at `text[at]` (after spaces), as strtod reads it (E notation, nan, inf),
// which must end at one of `ends` (or the line's end); else bad_number.
double number_at(std::string_view text, std::size_t at, std::string_view ends,
                 const std::string& path, int line, std::string_view field) {
  while (at < text.size() && text[at] == ' ') ++at;
  std::string piece(text.substr(at, std::min<std::size_t>(64, text.size() - at)));
  char* end = nullptr;
  double value = std::strtod(piece.c_str(), &end);
  std::size_t used = static_cast<std::size_t>(end - piece.c_str());
  if (used == 0 || (used < piece.size() && ends.find(piece[used]) == std::string_view::npos)) {
    bad_number(path, line, at, field, piece);
  }
  return value;
}

// The number after `label` in a Megatron line, or nullopt when the label is absent.
std::optional<double> labelled_number(std::string_view line, std::string_view label,
                                      const std::string& path, int number) {
  std::size_t at = line.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  return number_at(line, at + label.size(), " |", path, number, label.substr(0, label.size() - 1));
}

// The first `[YYYY-MM-DD HH:MM:SS...]` of a line.
std::optional<double> bracketed_timestamp(std::string_view line) {
  for (std::size_t at = line.find('['); at != std::string_view::npos; at = line.find('[', at + 1)) {
    if (std::optional<double> time = parse_log_timestamp(line.substr(at + 1))) return time;
  }
  return std::nullopt;
}

// Megatron's `iteration N/ M`: N and M, or nullopt.
std::optional<std::pair<std::int64_t, std::int64_t>> iteration_of(std::string_view line) {
  std::size_t at = line.find("iteration ");
  while (at != std::string_view::npos) {
    std::size_t k = at + 10;
    while (k < line.size() && line[k] == ' ') ++k;
    std::size_t digits = k;
    while (k < line.size() && ascii_digit(line[k])) ++k;
    if (k > digits && k < line.size() && line[k] == '/') {
      if (k - digits > 9) return std::pair(kMaxStep + 1, kMaxStep + 1);
      std::int64_t n =
          std::strtoll(std::string(line.substr(digits, k - digits)).c_str(), nullptr, 10);
      ++k;
      while (k < line.size() && line[k] == ' ') ++k;
      std::size_t total = k;
      while (k < line.size() && ascii_digit(line[k])) ++k;
      if (k > total) {
        if (k - total > 9) return std::pair(n, kMaxStep + 1);
        return std::pair(
            n, std::strtoll(std::string(line.substr(total, k - total)).c_str(), nullptr, 10));
      }
    }
    at = line.find("iteration ", at + 1);
  }
  return std::nullopt;
}

// slime's `step N: {` or `perf N: {` with `word` right after a line start, space, ']' or ')'
// (so `critic-step` is not the actor's): N, and where the dictionary starts.
std::optional<std::pair<std::int64_t, std::size_t>> slime_record(std::string_view line,
                                                                 std::string_view word) {
  for (std::size_t at = line.find(word); at != std::string_view::npos;
       at = line.find(word, at + 1)) {
    if (at > 0 && line[at - 1] != ' ' && line[at - 1] != ']' && line[at - 1] != ')') continue;
    std::size_t k = at + word.size();
    if (k >= line.size() || line[k] != ' ') continue;
    std::size_t digits = ++k;
    while (k < line.size() && ascii_digit(line[k])) ++k;
    if (k == digits || line.substr(k, 3) != ": {") continue;
    if (k - digits > 9) return std::pair(kMaxStep + 1, k + 2);
    return std::pair(
        std::strtoll(std::string(line.substr(digits, k - digits)).c_str(), nullptr, 10), k + 2);
  }
  return std::nullopt;
}

// The value of `'key': value` in a Python dict literal printed on one line, or nullopt when the
// key is absent.
std::optional<double> dict_number(std::string_view line, std::size_t from, std::string_view key,
                                  const std::string& path, int number) {
  std::string quoted = fmt::format("'{}': ", key);
  std::size_t at = line.find(quoted, from);
  if (at == std::string_view::npos) return std::nullopt;
  return number_at(line, at + quoted.size(), ",} ", path, number, key);
}

// slime's time figures, in the order preferred.
constexpr std::array<const char*, 3> kSlimeTimeKeys = {"perf/step_time", "perf/train_time",
                                                       "perf/actor_train_time"};

// One `perf N:` line's time figures (indexed as kSlimeTimeKeys).
struct SlimePerf {
  std::array<std::optional<double>, 3> seconds;
  int line = 0;
};

void add_step(std::map<std::int64_t, StepRecord>& steps, StepRecord record,
              const std::string& path) {
  auto [it, inserted] = steps.emplace(record.step, record);
  if (inserted) return;
  StepRecord& first = it->second;
  auto same = [](std::optional<double> a, std::optional<double> b) {
    return !a || !b || *a == *b || (std::isnan(*a) && std::isnan(*b));
  };
  if (!same(first.loss, record.loss) || !same(first.step_time_s, record.step_time_s)) {
    log_fault(path, record.line, 0, "step", "log.step",
              fmt::format(
                  "step {} appears again with other values (first at line {}); give one run's log",
                  record.step, first.line));
  }
  if (!first.loss) first.loss = record.loss;
  if (!first.step_time_s) first.step_time_s = record.step_time_s;
  if (!first.timestamp_s) first.timestamp_s = record.timestamp_s;
}

// Every step line of a log, by format, before the format is chosen.
struct LogLines {
  std::map<std::int64_t, StepRecord> megatron, slime_steps;
  std::map<std::int64_t, SlimePerf> slime_perf;
  std::optional<std::int64_t> total_steps;
  bool bridge = false;  ///< a Megatron-Bridge `Step Time :` line was seen
  LogSettings settings;
  std::vector<RankMemory> memory;
};

// Megatron's `iteration N/ M | ...` line (N and M given) into `lines`.
void add_megatron_line(std::string_view line, int line_number,
                       std::pair<std::int64_t, std::int64_t> iteration, const std::string& path,
                       LogLines& lines) {
  StepRecord record;
  record.step = iteration.first - 1;
  record.line = line_number;
  if (iteration.first > kMaxStep + 1 || iteration.second > kMaxStep) {
    log_fault(path, line_number, 0, "iteration", "log.step",
              fmt::format("expected at most {}", kMaxStep));
  }
  if (auto ms = labelled_number(line, "elapsed time per iteration (ms):", path, line_number)) {
    record.step_time_s = *ms / 1000.0;
  }
  record.loss = labelled_number(line, "lm loss:", path, line_number);
  record.timestamp_s = bracketed_timestamp(line);
  if (record.step < 0) {
    log_fault(path, line_number, 0, fmt::format("iteration {}", iteration.first), "log.step",
              "expected 1 or more");
  }
  lines.total_steps = iteration.second;
  add_step(lines.megatron, record, path);
}

// Sorts each line of `text` into LogLines; lines of other kinds are ignored.
LogLines read_log_lines(std::string_view text, const std::string& path) {
  LogLines lines;
  int line_number = 0;
  bool in_argument_dump = false;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    // A log copied through Windows ends its lines in CR LF: the CR is not part of a figure.
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find("Step Time :") != std::string_view::npos) lines.bridge = true;
    read_log_setting_line(line, line_number, in_argument_dump, lines.settings);
    if (Problems memory; !read_memory_line(line, line_number, path, lines.memory, memory)) {
      throw LogFault{memory.front()};
    }
    if (auto iteration = iteration_of(line);
        iteration && line.find(" | ") != std::string_view::npos) {
      add_megatron_line(line, line_number, *iteration, path, lines);
      continue;
    }
    if (auto step = slime_record(line, "step")) {
      if (step->first > kMaxStep) {
        log_fault(path, line_number, 0, "step", "log.step",
                  fmt::format("expected at most {}", kMaxStep));
      }
      StepRecord record;
      record.step = step->first;
      record.line = line_number;
      record.loss = dict_number(line, step->second, "train/loss", path, line_number);
      record.timestamp_s = bracketed_timestamp(line);
      add_step(lines.slime_steps, record, path);
      continue;
    }
    if (auto perf = slime_record(line, "perf")) {
      auto& times = lines.slime_perf[perf->first];
      times.line = line_number;
      for (std::size_t k = 0; k < kSlimeTimeKeys.size(); ++k) {
        times.seconds[k] = dict_number(line, perf->second, kSlimeTimeKeys[k], path, line_number);
      }
    }
  }
  return lines;
}

// slime's steps into `log`, each with the one time figure every `perf N:` line prints: the whole
// step when every perf line prints it, else the training part alone, never a mix.
void add_slime_steps(LogLines& lines, const std::string& path, TrainingLog& log) {
  log.format = LogFormat::kSlime;
  std::optional<std::size_t> key;
  for (std::size_t k = 0; k < kSlimeTimeKeys.size() && !key && !lines.slime_perf.empty(); ++k) {
    bool everywhere = true;
    for (const auto& [rollout, perf] : lines.slime_perf) everywhere &= perf.seconds[k].has_value();
    if (everywhere) key = k;
  }
  if (!lines.slime_perf.empty() && !key) {
    log_fault(path, 0, 0, "", "log.format",
              "the `perf N:` lines do not all print one of perf/step_time, perf/train_time or "
              "perf/actor_train_time");
  }
  log.step_time_source =
      key ? fmt::format("{} of `perf N:` (one step per rollout)", kSlimeTimeKeys[*key]) : "none";
  for (auto& [step, record] : lines.slime_steps) {
    // slime times a rollout; with the protocol's rollout batch = global batch it is one step.
    if (auto perf = lines.slime_perf.find(step); perf != lines.slime_perf.end() && key) {
      record.step_time_s = perf->second.seconds[*key];
    }
    log.steps.push_back(record);
  }
}

}  // namespace

std::string log_format_name(LogFormat format) {
  switch (format) {
    case LogFormat::kMegatronLm:
      return "Megatron-LM";
    case LogFormat::kMegatronBridge:
      return "Megatron-Bridge";
    case LogFormat::kSlime:
      return "slime";
  }
  return "?";
}

std::optional<double> parse_log_timestamp(std::string_view text) {
  // YYYY-MM-DD HH:MM:SS, then optionally [.,]fraction.
  if (text.size() < 19) return std::nullopt;
  const char* shape = "dddd-dd-dd dd:dd:dd";
  for (int i = 0; i < 19; ++i) {
    if (shape[i] == 'd' ? !ascii_digit(text[i]) : text[i] != shape[i]) {
      if (!(i == 10 && text[i] == 'T')) return std::nullopt;
    }
  }
  std::tm tm{};
  auto field = [&](int at, int length) {
    return std::atoi(std::string(text.substr(at, length)).c_str());
  };
  tm.tm_year = field(0, 4) - 1900;
  tm.tm_mon = field(5, 2) - 1;
  tm.tm_mday = field(8, 2);
  tm.tm_hour = field(11, 2);
  tm.tm_min = field(14, 2);
  tm.tm_sec = field(17, 2);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60) {
    return std::nullopt;
  }
  double seconds = static_cast<double>(timegm(&tm));
  if (text.size() > 20 && (text[19] == '.' || text[19] == ',') && ascii_digit(text[20])) {
    double scale = 0.1;
    for (std::size_t i = 20; i < text.size() && ascii_digit(text[i]); ++i, scale /= 10)
      seconds += (text[i] - '0') * scale;
  }
  return seconds;
}

std::optional<TrainingLog> parse_training_log(std::string_view text, const std::string& path,
                                              Problems& problems) {
  try {
    LogLines lines = read_log_lines(text, path);
    TrainingLog log;
    log.path = path;
    log.total_steps = lines.total_steps;
    log.settings = lines.settings;
    log.memory = lines.memory;
    if (!lines.megatron.empty()) {
      log.format = lines.bridge ? LogFormat::kMegatronBridge : LogFormat::kMegatronLm;
      log.step_time_source = "elapsed time per iteration (ms)";
      for (auto& [step, record] : lines.megatron) log.steps.push_back(record);
    } else if (!lines.slime_steps.empty()) {
      add_slime_steps(lines, path, log);
    } else {
      log_fault(
          path, 0, 0, "", "log.format",
          "no training step lines found (expected Megatron-LM or Megatron-Bridge `iteration N/ M "
          "| ... | "
          "elapsed time per iteration (ms): ... | lm loss: ...` or slime `step N: {'train/loss': "
          "...}` lines)");
    }
    return log;
  } catch (const LogFault& fault) {
    problems.push_back(fault.problem);
    return std::nullopt;
  }
}

std::optional<TrainingLog> read_training_log(const std::string& path, Problems& problems) {
  std::optional<std::string> text = read_text_file(path, std::size_t{2} << 30, problems);
  if (!text) return std::nullopt;
  return parse_training_log(*text, path, problems);
}

std::string log_excerpt(std::string_view text, std::size_t longest) {
  std::string out;
  for (char c : text.substr(0, longest)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace openrecipes
