#include "runs/wandb_csv.h"

#include <fmt/format.h>

#include <cstdlib>
#include <vector>

namespace openrecipes {
namespace {

// The cells of one CSV line (RFC 4180 quoting, `""` for a quote), or nullopt when a quote is not
// closed.
std::optional<std::vector<std::string>> csv_cells(std::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return cells;
}

bool ends_with(std::string_view text, std::string_view end) {
  return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

// The metric of a column `<run> - <metric>`: what follows the last ` - `, or the whole name.
std::string_view metric_of(std::string_view column) {
  std::size_t dash = column.rfind(" - ");
  return dash == std::string_view::npos ? column : column.substr(dash + 3);
}

// A Problem at `line` of the export, field `column`.
Problem at(const std::string& path, int line, const std::string& column, std::string rule,
           std::string message) {
  return {path, {line, 0}, column, std::move(rule), std::move(message), "", ""};
}

// The loss column's index, or nullopt with a Problem naming the columns.
std::optional<std::size_t> loss_column(const std::string& path,
                                       const std::vector<std::string>& header, Problems& problems) {
  std::vector<std::size_t> found;
  std::string names;
  for (std::size_t i = 1; i < header.size(); ++i) {
    const std::string& name = header[i];
    names += (names.empty() ? "" : ", ") + name;
    if (ends_with(name, "__MIN") || ends_with(name, "__MAX")) continue;
    if (ends_with(metric_of(name), "loss")) found.push_back(i);
  }
  if (found.size() == 1) return found.front();
  std::string listed;
  for (std::size_t i : found) listed += (listed.empty() ? "" : ", ") + header[i];
  problems.push_back(
      at(path, 1, "", "loss.wandb",
         found.empty()
             ? fmt::format("no loss column (expected `<run> - <metric>` with a metric ending in "
                           "`loss`, e.g. `lm loss` or `train/loss`; found {})",
                           names.substr(0, 160))
             : fmt::format("{} loss columns ({}): export a panel of one run's loss", found.size(),
                           listed.substr(0, 160))));
  return std::nullopt;
}

std::string trimmed(const std::string& text) {
  std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

bool is_wandb_csv_header(std::string_view header) {
  std::optional<std::vector<std::string>> cells = csv_cells(header);
  if (!cells) return false;
  for (const std::string& cell : *cells) {
    if (cell.find(" - ") != std::string::npos || ends_with(cell, "__MIN") ||
        ends_with(cell, "__MAX"))
      return true;
  }
  return false;
}

std::optional<LossSeries> read_wandb_csv(const std::string& path, std::string_view text,
                                         Problems& problems) {
  LossSeries series{path, "", {}};
  std::optional<std::size_t> column;
  std::string column_name, step_name;
  std::int64_t shift = 0;
  int line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::optional<std::vector<std::string>> cells = csv_cells(line);
    if (!cells) {
      problems.push_back(at(path, line_number, "", "loss.csv", "a quote is not closed"));
      return std::nullopt;
    }
    if (!column) {
      column = loss_column(path, *cells, problems);
      if (!column) return std::nullopt;
      column_name = (*cells)[*column];
      step_name = (*cells)[0];
      shift = metric_of(column_name) == "lm loss" ? -1 : 0;
      series.source = fmt::format("W&B CSV, `{}` by `{}`{}", column_name, step_name,
                                  shift ? " (Megatron's iteration N read as step N-1)" : "");
      continue;
    }
    if (cells->size() <= *column) {
      problems.push_back(
          at(path, line_number, column_name, "loss.csv",
             fmt::format("{} cells, expected at least {}", cells->size(), *column + 1)));
      return std::nullopt;
    }
    std::string step_text = trimmed((*cells)[0]), loss_text = trimmed((*cells)[*column]);
    if (loss_text.empty()) continue;
    char* stop = nullptr;
    long long step = std::strtoll(step_text.c_str(), &stop, 10);
    if (step_text.empty() || *stop != '\0' || step + shift < 0 || step > 100'000'000) {
      problems.push_back(at(path, line_number, step_name, "loss.step",
                            fmt::format("step '{}': expected an integer of {} or more",
                                        step_text.substr(0, 40), -shift)));
      return std::nullopt;
    }
    double loss = std::strtod(loss_text.c_str(), &stop);
    if (*stop != '\0') {
      problems.push_back(at(path, line_number, column_name, "loss.value",
                            fmt::format("loss '{}': expected a number", loss_text.substr(0, 40))));
      return std::nullopt;
    }
    if (!series.loss.emplace(step + shift, loss).second) {
      problems.push_back(at(path, line_number, step_name, "loss.step",
                            fmt::format("step {} given twice", step_text)));
      return std::nullopt;
    }
  }
  if (!column) {
    problems.push_back(at(path, 0, "", "loss.wandb", "an empty file"));
    return std::nullopt;
  }
  return series;
}

}  // namespace openrecipes
