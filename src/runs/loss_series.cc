#include "runs/loss_series.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/json_depth.h"
#include "base/yaml_document.h"
#include "runs/training_log.h"

namespace openrecipes {
namespace {

std::int64_t parse_step(const std::string& text, const std::string& where) {
  char* end = nullptr;
  long long step = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || step < 0) {
    throw LossSeriesError(fmt::format("{}: step '{}': expected a 0-based integer", where, text));
  }
  return step;
}

double json_loss(const nlohmann::json& value, const std::string& where) {
  if (value.is_number()) return value.get<double>();
  // Python's json.dump writes NaN and Infinity, which are not JSON; Megatron-Bridge's files may
  // hold them as strings after a round trip.
  if (value.is_string()) {
    std::string text = value.get<std::string>();
    if (text == "NaN" || text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "Infinity" || text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity" || text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  std::string found = value.is_string() ? "\"" + value.get<std::string>().substr(0, 40) + "\"" : value.type_name();
  throw LossSeriesError(fmt::format("{}: expected a number, found {}", where, found));
}

void insert(LossSeries& series, std::int64_t step, double loss, const std::string& where) {
  if (!series.loss.emplace(step, loss).second) {
    throw LossSeriesError(fmt::format("{}: step {} given twice", where, step));
  }
}

LossSeries from_json(const std::string& path, const std::string& text) {
  LossSeries series{path, "JSON", {}};
  nlohmann::json value;
  // Python's json.dump writes NaN and Infinity bare; quote them so the parser takes them.
  std::string patched;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      patched += c;
      if (c == '\\' && i + 1 < text.size()) patched += text[++i];
      else if (c == '"') in_string = false;
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
  if (std::optional<std::size_t> at = json_too_deep(patched)) {
    throw LossSeriesError(fmt::format("{}: nesting deeper than {} levels at byte {}", path, kMaxJsonDepth, *at));
  }
  try {
    value = nlohmann::json::parse(patched);
  } catch (const nlohmann::json::parse_error& error) {
    throw LossSeriesError(fmt::format("{}: not valid JSON at byte {}", path, error.byte));
  }
  if (value.is_array()) {
    series.source = "JSON list";
    for (std::size_t i = 0; i < value.size(); ++i) {
      insert(series, static_cast<std::int64_t>(i), json_loss(value[i], fmt::format("{}: [{}]", path, i)), path);
    }
  } else if (value.is_object()) {
    bool golden = false;
    for (const auto& [key, entry] : value.items()) golden |= entry.is_object();
    for (const auto& [key, entry] : value.items()) {
      std::string where = fmt::format("{}: \"{}\"", path, key.substr(0, 40));
      bool numeric = !key.empty() && key.find_first_not_of("-0123456789") == std::string::npos;
      // Megatron-Bridge's golden values: per step {"lm loss": ..., "iteration-time": ...}, beside
      // scalar memory figures (alloc, max_alloc) that are not steps.
      if (golden && !numeric && !entry.is_object()) continue;
      if (!numeric) throw LossSeriesError(where + ": expected a step number as the key");
      if (entry.is_object()) {
        series.source = "golden values JSON";
        if (!entry.contains("lm loss")) throw LossSeriesError(where + ": no \"lm loss\"");
        insert(series, parse_step(key, where), json_loss(entry.at("lm loss"), where + ".\"lm loss\""), path);
      } else {
        if (golden) throw LossSeriesError(where + ": expected {\"lm loss\": ...} as the other steps");
        series.source = "JSON {step: loss}";
        insert(series, parse_step(key, where), json_loss(entry, where), path);
      }
    }
  } else {
    throw LossSeriesError(fmt::format("{}: expected a list of losses or an object keyed by step, found {}", path,
                                      value.type_name()));
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
    std::string where = fmt::format("{}:{}", path, line_number);
    if (comma == std::string::npos) throw LossSeriesError(where + ": expected `step,loss`");
    std::string step = line.substr(0, comma), loss = line.substr(comma + 1);
    auto trim = [](std::string& s) {
      s.erase(0, s.find_first_not_of(" \t"));
      s.erase(s.find_last_not_of(" \t") + 1);
    };
    trim(step);
    trim(loss);
    bool header = step.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string::npos;
    if (line_number == 1 && header) continue;
    char* stop = nullptr;
    double value = std::strtod(loss.c_str(), &stop);
    if (loss.empty() || *stop != '\0') throw LossSeriesError(fmt::format("{}: loss '{}': expected a number", where, loss));
    insert(series, parse_step(step, where), value, where);
  }
  return series;
}

}  // namespace

LossSeries read_loss_series(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  if (extension != ".csv" && extension != ".json") {
    try {
      TrainingLog log = read_training_log(path);
      LossSeries series{path, log_format_name(log.format) + " log", {}};
      for (const StepRecord& step : log.steps) {
        if (!step.loss) throw LossSeriesError(fmt::format("{}:{}: step {} has no loss", path, step.line, step.step));
        series.loss.emplace(step.step, *step.loss);
      }
      return series;
    } catch (const TrainingLogError& error) {
      throw LossSeriesError(error.what());
    }
  }
  Problems problems;
  std::optional<std::string> text = read_text_file(path, std::size_t{256} << 20, problems);
  if (!text) throw LossSeriesError(problems.empty() ? path + ": cannot read" : format_problem_line(problems.front()));
  return extension == ".csv" ? from_csv(path, *text) : from_json(path, *text);
}

}  // namespace openrecipes
