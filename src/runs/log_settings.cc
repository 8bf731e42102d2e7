#include "runs/log_settings.h"

#include <array>
#include <cstdlib>
#include <utility>

#include "base/ascii.h"

namespace openrecipes {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

// A non-negative integer of at most 12 digits, the whole of `text`.
std::optional<std::int64_t> whole_integer(std::string_view text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  for (char c : text) {
    if (!ascii_digit(c)) return std::nullopt;
  }
  return std::strtoll(std::string(text).c_str(), nullptr, 10);
}

// The integer right after `label` (after spaces), or nullopt.
std::optional<std::int64_t> integer_after(std::string_view line, std::string_view label) {
  std::size_t at = line.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t k = at + label.size();
  while (k < line.size() && line[k] == ' ') ++k;
  std::size_t digits = k;
  while (k < line.size() && ascii_digit(line[k])) ++k;
  return whole_integer(line.substr(digits, k - digits));
}

void keep_first(std::optional<LoggedValue>& slot, std::int64_t value, int line_number,
                std::string_view line) {
  if (slot) return;
  std::string_view text = trim(line);
  slot = LoggedValue{value, line_number, std::string(text.substr(0, 160))};
}

// The argument names read, and where each goes.
using Slot = std::optional<LoggedValue> LogSettings::*;
constexpr std::array<std::pair<std::string_view, Slot>, 8> kArguments = {{
    {"world_size", &LogSettings::world_size},
    {"data_parallel_size", &LogSettings::data_parallel_size},
    {"global_batch_size", &LogSettings::global_batch_size},
    {"micro_batch_size", &LogSettings::micro_batch_size},
    {"seq_length", &LogSettings::seq_length},
    {"hidden_size", &LogSettings::hidden_size},
    {"num_layers", &LogSettings::num_layers},
    {"num_experts", &LogSettings::num_experts},
}};

// `  name ........ value` of the argument dump: `_print_args` pads the name with 48 - len(name)
// dots (at least one for the names read here).
void read_argument(std::string_view line, int line_number, LogSettings& settings) {
  std::string_view body = trim(line);
  std::size_t space = body.find(' ');
  if (space == std::string_view::npos) return;
  std::string_view name = body.substr(0, space);
  std::string_view rest = body.substr(space + 1);
  std::size_t dots = 0;
  while (dots < rest.size() && rest[dots] == '.') ++dots;
  if (dots == 0 || dots >= rest.size() || rest[dots] != ' ') return;
  std::string_view value = trim(rest.substr(dots + 1));
  for (const auto& [argument, slot] : kArguments) {
    if (name != argument) continue;
    if (std::optional<std::int64_t> number = whole_integer(value)) {
      keep_first(settings.*slot, *number, line_number, line);
    } else if (value == "None" && argument == "num_experts") {
      keep_first(settings.*slot, 0, line_number, line);
    }
  }
}

}  // namespace

void read_log_setting_line(std::string_view line, int line_number, bool& in_dump,
                           LogSettings& settings) {
  if (line.find("------------------------ arguments ------------------------") !=
      std::string_view::npos) {
    in_dump = true;
    settings.argument_dump = true;
    return;
  }
  if (in_dump) {
    if (line.find("-------------------- end of arguments ---------------------") !=
        std::string_view::npos) {
      in_dump = false;
    } else {
      read_argument(line, line_number, settings);
    }
    return;
  }
  if (line.find("using world size: ") != std::string_view::npos) {
    if (auto world = integer_after(line, "using world size: "))
      keep_first(settings.world_size, *world, line_number, line);
    if (auto dp = integer_after(line, "data-parallel size: "))
      keep_first(settings.data_parallel_size, *dp, line_number, line);
    return;
  }
  if (line.find("iteration ") == std::string_view::npos) return;
  std::optional<std::int64_t> batch = integer_after(line, "global batch size: ");
  if (!batch) return;
  if (!settings.global_batch_size) {
    keep_first(settings.global_batch_size, *batch, line_number, line);
  } else if (settings.global_batch_size->value != *batch) {
    keep_first(settings.global_batch_changed, *batch, line_number, line);
  }
}

}  // namespace openrecipes
