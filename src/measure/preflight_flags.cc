// check_measure_flags (preflight.h): the flags' own values.
#include <fmt/format.h>

#include <array>
#include <regex>

#include "measure/preflight.h"

namespace openrecipes {
namespace {

using Flag = std::pair<std::string, std::string>;  // flag as written, value

Problem flag_problem(const MeasureRequest& request, std::string field, std::string rule,
                     std::string message, std::string expected, std::string found) {
  // A command-line flag is in no file: its problem names the flag alone (base/problem.h prints no
  // position then); a recipe field names the recipe.
  std::string file = field.rfind("--", 0) == 0 ? std::string() : request.recipe_file;
  return {std::move(file),    {},
          std::move(field),   std::move(rule),
          std::move(message), std::move(expected),
          std::move(found)};
}

// The values written on #SBATCH lines, with their flags.
std::vector<Flag> sbatch_flags(const MeasureRequest& request) {
  std::vector<Flag> flags = {{"--partition", request.partition},
                             {"--account", request.account},
                             {"--qos", request.qos},
                             {"--reservation", request.reservation},
                             {"--time", request.time},
                             {"--exclude", request.exclude},
                             {"--nodelist", request.nodelist}};
  for (const std::string& arg : request.sbatch_args) flags.emplace_back("--sbatch-arg", arg);
  return flags;
}

// Every value of every flag, with its flag.
std::vector<Flag> every_flag(const MeasureRequest& request) {
  std::vector<Flag> flags = sbatch_flags(request);
  flags.insert(flags.end(), {{"--container-image", request.container_image},
                             {"--container-mounts", request.container_mounts},
                             {"--model-args-file", request.model_args_file},
                             {"--rows", request.rows_file},
                             {"--out", request.out_dir},
                             {"RECIPE", request.recipe_file}});
  for (const auto& [name, value] : request.env) flags.emplace_back("--env", name + "=" + value);
  for (const auto& [name, value] : request.set) flags.emplace_back("--set", name + "=" + value);
  return flags;
}

bool has_control(std::string_view text) {
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return true;
  }
  return false;
}

void check_controls(const Recipe& recipe, const MeasureRequest& request, Problems& problems) {
  for (const auto& [flag, value] : every_flag(request)) {
    if (!has_control(value)) continue;
    problems.push_back(flag_problem(
        request, flag, "measure.control",
        "holds a control character: a newline would start another line of the batch script",
        "printable text", escape_controls(value)));
  }
  for (const auto& [name, value] : recipe.env) {
    if (!has_control(value)) continue;
    problems.push_back(flag_problem(
        request, "env." + name, "measure.control",
        "holds a control character: a newline would start another line of the batch script",
        "printable text", escape_controls(value)));
  }
}

// Slurm's --time forms: minutes, minutes:seconds, hours:minutes:seconds, days-hours,
// days-hours:minutes, days-hours:minutes:seconds; or UNLIMITED/INFINITE.
bool is_slurm_time(const std::string& text) {
  static const std::regex form(
      R"(\d+(:\d+){0,2}|\d+-\d+(:\d+){0,2}|UNLIMITED|INFINITE|unlimited|infinite)");
  return std::regex_match(text, form);
}

// An --sbatch-arg that sets what measure writes itself.
bool sets_own_option(const std::string& arg) {
  static constexpr std::array<std::string_view, 6> kOwn = {"--nodes", "-N",      "--output",
                                                           "-o",      "--error", "-e"};
  for (std::string_view own : kOwn) {
    if (arg == own || arg.rfind(std::string(own) + "=", 0) == 0) return true;
    if (own.size() == 2 && arg.size() > 2 && arg.rfind(own, 0) == 0) return true;
  }
  return false;
}

void check_sbatch_values(const MeasureRequest& request, Problems& problems) {
  for (const auto& [flag, value] : sbatch_flags(request)) {
    if (value.find_first_of(" \t'\"\\") == std::string::npos || has_control(value)) continue;
    problems.push_back(flag_problem(
        request, flag, "measure.sbatch_value",
        "is written on an #SBATCH line, which sbatch reads without the shell's quoting",
        "no blanks, quotes or backslashes", value));
  }
  if (!request.time.empty() && !is_slurm_time(request.time)) {
    problems.push_back(flag_problem(request, "--time", "measure.time", "is not a Slurm time limit",
                                    "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS",
                                    request.time));
  }
  for (const std::string& arg : request.sbatch_args) {
    if (arg.empty() || arg[0] != '-') {
      problems.push_back(flag_problem(request, "--sbatch-arg", "measure.sbatch_arg",
                                      "is not an sbatch option", "--option=value", arg));
    } else if (sets_own_option(arg)) {
      problems.push_back(
          flag_problem(request, "--sbatch-arg", "measure.sbatch_arg",
                       "sets what measure sets itself (its log is where measure reads it)",
                       "an option other than --nodes, --output and --error", arg));
    }
  }
}

}  // namespace

std::string escape_controls(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

void check_measure_flags(const Recipe& recipe, const MeasureRequest& request, Problems& problems) {
  check_controls(recipe, request, problems);
  check_sbatch_values(request, problems);
  if (!request.container_mounts.empty() && request.container_image.empty()) {
    problems.push_back(flag_problem(request, "--container-mounts", "measure.container_mounts",
                                    "pyxis mounts into a container: give --container-image too",
                                    "--container-image IMAGE", "no image"));
  }
}

}  // namespace openrecipes
