#include "export/export_notes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "catalog/protocol.h"

namespace openrecipes {

std::string comment_lines(const std::string& text, const std::string& indent) {
  constexpr std::size_t kWidth = 100;
  std::istringstream words(text);
  std::string out, line;
  for (std::string word; words >> word;) {
    if (!line.empty() && indent.size() + 2 + line.size() + 1 + word.size() > kWidth) {
      out += indent + "# " + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + "# " + line + "\n";
  return out;
}

std::string run_settings_note(const ExportSource& source, const std::string& indent) {
  std::string out;
  if (!source.recipe_run_settings.empty()) {
    out += comment_lines(fmt::format("Run settings from the settings recipe, not given to export: "
                                     "{}; the prediction assumes them, as plan does only when "
                                     "they are given",
                                     fmt::join(source.recipe_run_settings, " ")),
                         indent);
  }
  if (!source.dropped_run_settings.empty()) {
    out += comment_lines("Not carried: " + arguments_words(source.dropped_run_settings) +
                             ", which the settings recipe runs: this layout is not legal with "
                             "it (" +
                             source.dropped_run_settings_reason + ")",
                         indent);
  }
  return out;
}

std::string arguments_words(const std::vector<CommandArgument>& arguments) {
  std::string out;
  for (const CommandArgument& argument : arguments) {
    out += (out.empty() ? "" : " ") + argument.flag;
    for (const std::string& value : argument.values) out += " " + value;
  }
  return out;
}

std::vector<CommandArgument> not_written(const std::vector<CommandArgument>& recipe,
                                         const std::vector<CommandArgument>& written) {
  std::vector<CommandArgument> out;
  for (const CommandArgument& argument : recipe) {
    bool same = std::any_of(written.begin(), written.end(), [&](const CommandArgument& w) {
      return w.flag == argument.flag && w.values == argument.values;
    });
    if (!same) out.push_back(argument);
  }
  return out;
}

std::vector<CommandArgument> protocol_arguments(const ExportSource& source) {
  auto number = [](auto value) { return fmt::format("{}", value); };
  std::vector<CommandArgument> list = {{"--seq-length", {number(source.workload.row_tokens)}}};
  for (const CommandArgument& argument : layout_arguments(source)) list.push_back(argument);
  list.push_back({"--micro-batch-size", {number(source.layout.rows_per_microbatch)}});
  list.push_back({"--global-batch-size", {number(source.workload.global_batch)}});
  list.push_back({"--train-iters", {number(kProtocolSteps)}});
  list.push_back({"--bf16", {}});
  list.push_back({"--use-distributed-optimizer", {}});
  return list;
}

const CommandArgument* spec_argument(const ExportSource& source) {
  for (const CommandArgument& argument : source.model_arguments) {
    if (argument.flag == "--spec") return &argument;
  }
  return nullptr;
}

bool is_sft(const ExportSource& source) {
  if (source.dataset && !source.dataset->build.loss_mask.empty()) return true;
  return std::any_of(source.slime_only_arguments.begin(), source.slime_only_arguments.end(),
                     [](const CommandArgument& argument) {
                       return argument.flag == "--loss-type" && argument.values.size() == 1 &&
                              argument.values[0] == "sft_loss";
                     });
}

std::string model_script_words(const ExportSource& source) {
  if (!source.model_script) return "";
  std::string sets;
  for (const auto& [flag, value] : source.model_script->sets) {
    sets += " " + flag;
    if (value != "true") sets += " " + value;
  }
  return fmt::format("The recipe's model_script says {} is {}; it sets{}.",
                     source.model_script->array, source.model_script->name, sets);
}

std::string rows_words(const ExportSource& source) {
  if (!source.dataset) return "the recipe's rows (no workload.dataset to name them)";
  const DatasetBuild& b = source.dataset->build;
  std::string out = fmt::format("the rows {} ({} rows of {} tokens built by openrecipes rows build",
                                b.name, b.rows, b.row_tokens);
  if (!b.loss_mask.empty()) out += ", loss mask " + b.loss_mask;
  if (!source.dataset->rows_sha256.empty()) out += ", rows_sha256 " + source.dataset->rows_sha256;
  return out + ")";
}

std::vector<std::string> unset_variables(const std::string& run_text) {
  static const std::regex kAssigned(R"((?:^|[\s;])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=)");
  static const std::regex kRead(R"(\$\{?([A-Za-z_][A-Za-z0-9_]*))");
  std::set<std::string> assigned = {"MODEL_ARGS"};
  for (std::sregex_iterator it(run_text.begin(), run_text.end(), kAssigned), end; it != end; ++it)
    assigned.insert((*it)[1]);
  // `export A=1 B=2` assigns B too.
  static const std::regex kMore(R"(\s([A-Za-z_][A-Za-z0-9_]*)=)");
  for (std::sregex_iterator it(run_text.begin(), run_text.end(), kMore), end; it != end; ++it)
    assigned.insert((*it)[1]);
  std::vector<std::string> out;
  for (std::sregex_iterator it(run_text.begin(), run_text.end(), kRead), end; it != end; ++it) {
    std::string name = (*it)[1];
    if (assigned.count(name) || std::find(out.begin(), out.end(), name) != out.end()) continue;
    out.push_back(name);
  }
  return out;
}

}  // namespace openrecipes
