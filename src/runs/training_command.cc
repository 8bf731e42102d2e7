#include "runs/training_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace openrecipes {
namespace {

bool is_flag(const ShellWord& word) {
  return word.opaque_array.empty() && word.text.size() > 2 && word.text.rfind("--", 0) == 0;
}

// `section.key=value` (Megatron-Bridge, Hydra) or `key=value`, with Hydra's `+`/`++` prefixes.
bool is_override(const ShellWord& word) {
  if (!word.opaque_array.empty()) return false;
  std::string_view text = word.text;
  while (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || !std::islower(static_cast<unsigned char>(text[0])))
    return false;
  for (std::size_t i = 0; i < eq; ++i) {
    char c = text[i];
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '.')) {
      return false;
    }
  }
  return true;
}

bool is_option(const ShellWord& word) { return is_flag(word) || is_override(word); }

// A switch's value as `true`/`false` (Bridge writes `True`, Hydra `true`); anything else as
// written.
std::string switch_value(const std::string& value) {
  std::string lower;
  for (char c : value) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "true" || lower == "1" || lower == "yes") return "true";
  if (lower == "false" || lower == "0" || lower == "no") return "false";
  return value;
}

const ShellCommand* training_command_of(const ShellScript& script) {
  const ShellCommand* best = nullptr;
  std::size_t best_options = 0;
  for (const ShellCommand& command : script.commands) {
    std::size_t options = std::count_if(command.words.begin(), command.words.end(), is_option);
    if (!best || options >= best_options) {
      best = &command;
      best_options = options;
    }
  }
  return best;
}

}  // namespace

const TrainingArgument* TrainingCommand::find(std::string_view name) const {
  for (const TrainingArgument& argument : arguments) {
    if (argument.name == name) return &argument;
  }
  return nullptr;
}

TrainingCommand training_command_from_script(const ShellScript& script,
                                             const ArgumentRules& rules) {
  TrainingCommand out;
  std::map<std::string, TrainingVariable> environment;
  for (const ShellExport& e : script.exports) environment[e.name] = {e.name, e.value, e.line};
  const ShellCommand* command = training_command_of(script);
  std::map<std::string, TrainingArgument> arguments;
  if (command) {
    out.line = command->line;
    for (const auto& [name, value] : command->assignments)
      environment[name] = {name, value, command->line};
    const std::vector<ShellWord>& words = command->words;
    std::vector<std::string> program;
    for (std::size_t i = 0; i < words.size(); ++i) {
      const ShellWord& word = words[i];
      if (!word.opaque_array.empty()) {
        if (std::find(out.external_arrays.begin(), out.external_arrays.end(), word.opaque_array) ==
            out.external_arrays.end()) {
          out.external_arrays.push_back(word.opaque_array);
        }
        continue;
      }
      TrainingArgument argument;
      argument.line = word.line;
      if (is_flag(word)) {
        std::size_t eq = word.text.find('=');
        argument.spelling = word.text.substr(0, eq);
        SpellingMatch match = rules.find_spelling(argument.spelling);
        argument.known = match.rule != nullptr;
        argument.name = match.rule ? match.rule->name : argument.spelling;
        ArgumentTakes takes = match.rule ? match.rule->takes : ArgumentTakes::kValue;
        bool is_switch = match.negated || takes == ArgumentTakes::kSwitch;
        auto value_word = [&](std::size_t j) {
          return j < words.size() && words[j].opaque_array.empty() && !is_flag(words[j]);
        };
        if (eq != std::string::npos) {
          argument.value = word.text.substr(eq + 1);
          if (is_switch) argument.value = switch_value(argument.value);
          if (match.negated) argument.value = argument.value == "true" ? "false" : "true";
        } else if (is_switch) {
          argument.value = match.negated ? "false" : "true";
        } else if (takes == ArgumentTakes::kValues) {
          std::vector<std::string> values;
          while (value_word(i + 1) && !is_override(words[i + 1])) values.push_back(words[++i].text);
          argument.value = fmt::format("{}", fmt::join(values, " "));
        } else if (value_word(i + 1) && (match.rule || !is_override(words[i + 1]))) {
          argument.value = words[++i].text;
        } else {
          argument.value = match.rule ? "" : "true";  // an unknown flag alone reads as a switch
        }
      } else if (is_override(word)) {
        std::string_view text = word.text;
        while (!text.empty() && text.front() == '+') text.remove_prefix(1);
        std::size_t eq = text.find('=');
        argument.spelling = std::string(text.substr(0, eq));
        argument.value = std::string(text.substr(eq + 1));
        SpellingMatch match = rules.find_spelling(argument.spelling);
        argument.known = match.rule != nullptr;
        argument.name = match.rule ? match.rule->name : argument.spelling;
        if (match.rule && match.rule->takes == ArgumentTakes::kSwitch)
          argument.value = switch_value(argument.value);
      } else {
        program.push_back(word.text);
        continue;
      }
      arguments[argument.name] = std::move(argument);  // argparse: the last occurrence wins
    }
    for (const std::string& word : program) out.program += (out.program.empty() ? "" : " ") + word;
  }
  for (auto& [name, argument] : arguments) out.arguments.push_back(std::move(argument));
  for (auto& [name, variable] : environment) out.environment.push_back(std::move(variable));
  return out;
}

TrainingCommand read_training_command(std::string_view text, const ArgumentRules& rules) {
  return training_command_from_script(read_shell_script(text), rules);
}

}  // namespace openrecipes
