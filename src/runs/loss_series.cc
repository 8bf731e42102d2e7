#include "runs/loss_series.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "base/ascii.h"
#include "base/json_depth.h"
#include "base/json_syntax.h"
#include "base/yaml_document.h"
#include "runs/training_log.h"
#include "runs/wandb_csv.h"

namespace openrecipes {
namespace {

// Where in a series file a value is: the file, a line (CSV) and a field (a JSON key, `step`).
struct Where {
  std::string file;
  int line = 0;
  std::string field;
};

// What is wrong with a series, thrown from deep in its parsing and caught by read_loss_series,
// which returns it as a Problem; it never leaves this file.
struct SeriesFault {
  Problem problem;
};

[[noreturn]] void series_fault(const Where& where, std::string message,
                               std::string rule = "loss.value") {
  throw SeriesFault{
      {where.file, {where.line, 0}, where.field, std::move(rule), std::move(message), "", ""}};
}

Where with_field(Where where, const std::string& field) {
  where.field = where.field.empty() ? field : where.field + "." + field;
  return where;
}

// Steps and intervals beyond this are not a training run's.
constexpr std::int64_t kMaxGoldenStep = 100'000'000;

std::int64_t parse_step(const std::string& text, const Where& where) {
  // No run has more steps than a training log may name (training_log.cc's bound); strtoll would
  // clamp a longer number to 2^63 - 1 and report billions of missing steps.
  constexpr std::int64_t kMaxSeriesStep = 100'000'000;
  std::int64_t step = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), step);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || step < 0 ||
      step > kMaxSeriesStep) {
    series_fault(where,
                 fmt::format("step '{}': expected a 0-based integer from 0 to {}",
                             text.substr(0, 40), kMaxSeriesStep),
                 "loss.step");
  }
  return step;
}

double json_loss(const nlohmann::json& value, const Where& where) {
  if (value.is_number()) return value.get<double>();
  // Python's json.dump writes NaN and Infinity, which are not JSON; Megatron-Bridge's files may
  // hold them as strings after a round trip.
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    if (text == "NaN" || text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity" || text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity" || text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  std::string found =
      value.is_string() ? "\"" + value.get<std::string>().substr(0, 40) + "\"" : value.type_name();
  series_fault(where, fmt::format("expected a number, found {}", found));
}

void insert(LossSeries& series, std::int64_t step, double loss, const Where& where) {
  if (!series.loss.emplace(step, loss).second) {
    series_fault(where, fmt::format("step {} given twice", step), "loss.step");
  }
}

// Python's json.dump writes NaN and Infinity bare; quotes them so the parser takes them.
std::string quote_non_finite(const std::string& text) {
  std::string patched;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      patched += c;
      if (c == '\\' && i + 1 < text.size())
        patched += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool matched = false;
    for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
      if (text.compare(i, word.size(), word) == 0) {
        patched += '"' + std::string(word) + '"';
        i += word.size() - 1;
        matched = true;
        break;
      }
    }
    if (!matched) patched += c;
  }
  return patched;
}

// The integer `metric[key]` of a golden-values metric, or a loss.golden fault naming it.
std::int64_t golden_integer(const nlohmann::json& metric, const char* key, const Where& where) {
  Where at = with_field(where, key);
  if (!metric.contains(key)) series_fault(at, fmt::format("no {}", key), "loss.golden");
  const nlohmann::json& value = metric.at(key);
  if (!value.is_number_integer()) {
    series_fault(at, fmt::format("expected an integer, found {}", value.dump().substr(0, 40)),
                 "loss.golden");
  }
  return value.get<std::int64_t>();
}

// Megatron-LM's golden values (tests/functional_tests/python_test_utils/common.py
// GoldenValueMetric): the "lm loss" metric's values, keyed by iteration (dict) or indexed by
// TensorBoard event (list).
LossSeries from_megatron_golden(const std::string& path, const nlohmann::json& metric) {
  LossSeries series{path, "Megatron-LM golden values JSON (iteration N read as step N-1)", {}};
  Where where{path, 0, "\"lm loss\""};
  std::int64_t start = golden_integer(metric, "start_step", where);
  std::int64_t end = golden_integer(metric, "end_step", where);
  std::int64_t interval = golden_integer(metric, "step_interval", where);
  if (interval < 1 || interval > kMaxGoldenStep) {
    series_fault(with_field(where, "step_interval"),
                 fmt::format("expected a positive integer, found {}", interval), "loss.golden");
  }
  if (start < 0 || end < start || end > kMaxGoldenStep) {
    series_fault(with_field(where, "end_step"),
                 fmt::format("expected 0 <= start_step <= end_step <= {}, found {} and {}",
                             kMaxGoldenStep, start, end),
                 "loss.golden");
  }
  series.sampled = interval > 1;
  const nlohmann::json* values = metric.contains("values") ? &metric.at("values") : nullptr;
  Where at = with_field(where, "values");
  if (values && values->is_array()) {
    series.source =
        "Megatron-LM golden values JSON (list: value i is step start_step + i x "
        "step_interval)";
    for (std::size_t i = 0; i < values->size(); ++i) {
      std::int64_t step = start + static_cast<std::int64_t>(i) * interval;
      Where item = with_field(at, fmt::format("[{}]", i));
      if (step > end)
        series_fault(item, fmt::format("step {} is past end_step {}", step, end), "loss.golden");
      insert(series, step, json_loss((*values)[i], item), item);
    }
  } else if (values && values->is_object()) {
    for (const auto& [key, value] : values->items()) {
      Where item = with_field(at, fmt::format("\"{}\"", key.substr(0, 40)));
      std::int64_t iteration = parse_step(key, item);
      if (iteration < 1 || iteration < start || iteration > end) {
        series_fault(
            item,
            fmt::format("iteration {} is outside start_step {} to end_step {} (iterations count "
                        "from 1)",
                        iteration, start, end),
            "loss.golden");
      }
      insert(series, iteration - 1, json_loss(value, item), item);
    }
  } else {
    series_fault(at, "expected the values as an object keyed by iteration or a list",
                 "loss.golden");
  }
  return series;
}

// A Megatron-LM golden-values file: its metrics are objects with start_step and values.
bool is_megatron_golden(const nlohmann::json& value) {
  if (!value.is_object() || value.empty()) return false;
  for (const auto& [key, entry] : value.items()) {
    if (!entry.is_object() || !entry.contains("values") || !entry.contains("step_interval"))
      return false;
  }
  return true;
}

LossSeries from_json(const std::string& path, const std::string& text) {
  LossSeries series{path, "JSON", {}};
  nlohmann::json value;
  std::string patched = quote_non_finite(text);
  Where file{path, 0, ""};
  if (std::optional<std::size_t> at = json_too_deep(patched)) {
    series_fault(file, fmt::format("nesting deeper than {} levels at byte {}", kMaxJsonDepth, *at),
                 "loss.json");
  }
  if (std::optional<JsonSyntaxError> error = json_syntax_error(patched)) {
    // 1e309 and the like: a number past a double, which nlohmann::json refuses.
    Problem problem = json_syntax_problem(*error, path, "loss.json");
    problem.position.column = 0;
    throw SeriesFault{std::move(problem)};
  }
  value = nlohmann::json::parse(patched);
  if (is_megatron_golden(value)) {
    if (!value.contains("lm loss")) {
      std::string metrics;
      for (const auto& [key, entry] : value.items()) metrics += (metrics.empty() ? "" : ", ") + key;
      series_fault(file, fmt::format("no \"lm loss\" metric (found {})", metrics.substr(0, 120)),
                   "loss.golden");
    }
    return from_megatron_golden(path, value.at("lm loss"));
  }
  if (value.is_array()) {
    series.source = "JSON list";
    for (std::size_t i = 0; i < value.size(); ++i) {
      insert(series, static_cast<std::int64_t>(i),
             json_loss(value[i], {path, 0, fmt::format("[{}]", i)}), file);
    }
  } else if (value.is_object()) {
    bool golden = false;
    for (const auto& [key, entry] : value.items()) golden |= entry.is_object();
    for (const auto& [key, entry] : value.items()) {
      Where where{path, 0, fmt::format("\"{}\"", key.substr(0, 40))};
      bool numeric = !key.empty() && key.find_first_not_of("-0123456789") == std::string::npos;
      // Megatron-Bridge's golden values: per step {"lm loss": ..., "iteration-time": ...}, beside
      // scalar memory figures (alloc, max_alloc) that are not steps.
      if (golden && !numeric && !entry.is_object()) continue;
      if (!numeric) series_fault(where, "expected a step number as the key", "loss.step");
      if (entry.is_object()) {
        series.source = "golden values JSON";
        if (!entry.contains("lm loss")) series_fault(where, "no \"lm loss\"");
        insert(series, parse_step(key, where),
               json_loss(entry.at("lm loss"), with_field(where, "\"lm loss\"")), file);
      } else {
        if (golden) series_fault(where, "expected {\"lm loss\": ...} as the other steps");
        series.source = "JSON {step: loss}";
        insert(series, parse_step(key, where), json_loss(entry, where), file);
      }
    }
  } else {
    series_fault(file,
                 fmt::format("expected a list of losses or an object keyed by step, found {}",
                             value.type_name()),
                 "loss.json");
  }
  return series;
}

LossSeries from_csv(const std::string& path, const std::string& text) {
  LossSeries series{path, "CSV", {}};
  int line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#') continue;
    std::size_t comma = line.find(',');
    Where where{path, line_number, ""};
    if (comma == std::string::npos) series_fault(where, "expected `step,loss`", "loss.csv");
    std::string step = line.substr(0, comma), loss = line.substr(comma + 1);
    auto trim = [](std::string& s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t") + 1);
    };
    trim(step);
    trim(loss);
    if (loss.find(',') != std::string::npos)
      series_fault(where, fmt::format("expected two columns, `step,loss`, found `{}`", line),
                   "loss.csv");
    bool header = step.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
                  std::string::npos;
    // A header names its columns: the second must be a loss (`loss`, `lm loss`, `train/loss`),
    // so that `step,accuracy` is not compared as if it were one.
    if (line_number == 1 && header && ascii_lowercase(loss).find("loss") == std::string::npos)
      series_fault(
          where,
          fmt::format("the second column is `{}`, not a loss (expected a header `step,loss`)",
                      loss),
          "loss.csv");
    if (line_number == 1 && header) continue;
    char* stop = nullptr;
    double value = std::strtod(loss.c_str(), &stop);
    if (loss.empty() || *stop != '\0')
      series_fault(where, fmt::format("loss '{}': expected a number", loss));
    insert(series, parse_step(step, where), value, where);
  }
  return series;
}

// A training log's losses; a step without one is a Problem naming its line.
std::optional<LossSeries> from_log(const std::string& path, Problems& problems) {
  std::optional<TrainingLog> log = read_training_log(path, problems);
  if (!log) return std::nullopt;
  LossSeries series{path, log_format_name(log->format) + " log", {}};
  for (const StepRecord& step : log->steps) {
    if (!step.loss) {
      problems.push_back({path,
                          {step.line, 0},
                          "",
                          "loss.value",
                          fmt::format("step {} has no loss", step.step),
                          "",
                          ""});
      return std::nullopt;
    }
    series.loss.emplace(step.step, *step.loss);
  }
  return series;
}

}  // namespace

std::optional<LossSeries> read_loss_series(const std::string& path, Problems& problems) {
  std::string extension = std::filesystem::path(path).extension().string();
  if (extension != ".csv" && extension != ".json") return from_log(path, problems);
  std::optional<std::string> text = read_text_file(path, std::size_t{256} << 20, problems);
  if (!text) return std::nullopt;
  if (extension == ".csv" && is_wandb_csv_header(std::string_view(*text).substr(
                                 0, std::min(text->find('\n'), text->size())))) {
    return read_wandb_csv(path, *text, problems);
  }
  try {
    return extension == ".csv" ? from_csv(path, *text) : from_json(path, *text);
  } catch (const SeriesFault& fault) {
    problems.push_back(fault.problem);
    return std::nullopt;
  }
}

}  // namespace openrecipes
