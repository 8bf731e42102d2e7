#include "runs/training_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "base/ascii.h"

namespace openrecipes {
namespace {

bool is_flag(const ShellWord& word) {
  return word.opaque_array.empty() && word.text.size() > 2 && word.text.rfind("--", 0) == 0;
}

// A Hydra key: `section.key`, lower case, digits, `_` and `.`.
bool is_key(std::string_view key) {
  if (key.empty() || !std::islower(static_cast<unsigned char>(key[0]))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

// `section.key=value` (Megatron-Bridge, Hydra) or `key=value`, with Hydra's `+`/`++` prefixes.
bool is_override_word(const ShellWord& word) {
  if (!word.opaque_array.empty()) return false;
  std::string_view text = word.text;
  if (text.rfind("++", 0) == 0) {
    text.remove_prefix(2);
  } else if (text.rfind('+', 0) == 0) {
    text.remove_prefix(1);
  }
  std::size_t eq = text.find('=');
  return eq != std::string_view::npos && is_key(text.substr(0, eq));
}

// Hydra's deletion of a key: `~section.key` or `~section.key=value`.
bool is_deletion(const ShellWord& word) {
  if (!word.opaque_array.empty() || word.text.size() < 2 || word.text[0] != '~') return false;
  std::string_view text = std::string_view(word.text).substr(1);
  return is_key(text.substr(0, text.find('=')));
}

bool is_option(const ShellWord& word) {
  return is_flag(word) || is_override_word(word) || is_deletion(word);
}

// Programs that launch training: a command run by one of them is preferred over a helper
// command (`mkdir -p`, `huggingface-cli download --repo ...`).
bool is_launcher(const ShellCommand& command) {
  if (command.words.empty()) return false;
  std::string program = command.words[0].text;
  if (std::size_t slash = program.rfind('/'); slash != std::string::npos)
    program = program.substr(slash + 1);
  if (program.rfind("python", 0) == 0) return true;
  for (const char* launcher :
       {"torchrun", "deepspeed", "accelerate", "ray", "srun", "mpirun", "uv"}) {
    if (program == launcher) return true;
  }
  return false;
}

bool same_words(const ShellCommand& a, const ShellCommand& b) {
  return std::equal(a.words.begin(), a.words.end(), b.words.begin(), b.words.end(),
                    [](const ShellWord& x, const ShellWord& y) { return x.text == y.text; });
}

// A switch's value as `true`/`false` (Bridge writes `True`, Hydra `true`); anything else as
// written.
std::string switch_value(const std::string& value) {
  std::string lower = ascii_lowercase(value);
  if (lower == "true" || lower == "1" || lower == "yes") return "true";
  if (lower == "false" || lower == "0" || lower == "no") return "false";
  return value;
}

// A problem of the text (see TrainingCommand::problems) at 1-based `line`, 0 for the whole text.
Problem command_problem(int line, std::string message) {
  return {"", {line, line > 0 ? 1 : 0}, "", "run.command", std::move(message), "", ""};
}

// The commands with options, and those of them run by a launcher.
struct Candidates {
  std::vector<const ShellCommand*> with_options;
  std::vector<const ShellCommand*> launched;
};

Candidates candidates_of(const ShellScript& script) {
  Candidates out;
  for (const ShellCommand& command : script.commands) {
    if (std::none_of(command.words.begin(), command.words.end(), is_option)) continue;
    out.with_options.push_back(&command);
    if (is_launcher(command)) out.launched.push_back(&command);
  }
  return out;
}

// The problem when no command can be picked from `candidates` before counting options, if any.
std::optional<Problem> no_command_problem(const ShellScript& script, const Candidates& candidates) {
  if (candidates.with_options.empty()) {
    if (script.commands.size() == 1) return std::nullopt;
    return command_problem(
        0, script.commands.empty()
               ? "no command found"
               : fmt::format("no command found: none of its {} lines read as commands has a flag "
                             "or override (is it a log?)",
                             script.commands.size()));
  }
  if (candidates.launched.empty() && candidates.with_options.size() > 1) {
    return command_problem(
        candidates.with_options.front()->line,
        fmt::format("no command found: {} commands have flags or overrides and none is "
                    "run by a launcher such as python or torchrun (is it a log?)",
                    candidates.with_options.size()));
  }
  return std::nullopt;
}

// The training command (see training_command_from_script), or nullptr with a problem in `out`.
const ShellCommand* training_command_of(const ShellScript& script, TrainingCommand& out) {
  Candidates candidates = candidates_of(script);
  if (std::optional<Problem> problem = no_command_problem(script, candidates)) {
    out.problems.push_back(std::move(*problem));
    return nullptr;
  }
  if (candidates.with_options.empty()) return &script.commands[0];
  const std::vector<const ShellCommand*>& pool =
      candidates.launched.empty() ? candidates.with_options : candidates.launched;
  auto options = [](const ShellCommand* command) {
    return std::count_if(command->words.begin(), command->words.end(), is_option);
  };
  const ShellCommand* best = nullptr;
  std::vector<const ShellCommand*> tied;
  for (const ShellCommand* command : pool) {
    if (!best || options(command) > options(best)) {
      best = command;
      tied.clear();
    } else if (options(command) == options(best) && !same_words(*command, *best)) {
      tied.push_back(command);
    }
  }
  for (const ShellCommand* command : candidates.with_options) {
    if (command != best) out.other_commands.push_back(command->line);
  }
  if (!tied.empty()) {
    std::vector<int> lines{best->line};
    for (const ShellCommand* command : tied) lines.push_back(command->line);
    std::sort(lines.begin(), lines.end());
    out.problems.push_back(command_problem(
        lines.front(),
        fmt::format("several training commands (lines {}) with as many flags and overrides: "
                    "cannot tell which one is the run; keep one",
                    fmt::join(lines, ", "))));
    return nullptr;
  }
  return best;
}

// The rule that owns `spelling`, and the argument's names from it.
SpellingMatch name_argument(TrainingArgument& argument, const ArgumentRules& rules) {
  SpellingMatch match = rules.find_spelling(argument.spelling);
  argument.known = match.rule != nullptr;
  argument.name = match.rule ? match.rule->name : argument.spelling;
  return match;
}

// Hydra's `~key` or `~key=value`: the key deleted.
void read_deletion(const ShellWord& word, const ArgumentRules& rules, TrainingArgument& argument) {
  std::string_view key = std::string_view(word.text).substr(1);
  argument.spelling = std::string(key.substr(0, key.find('=')));
  argument.value = "~deleted";
  name_argument(argument, rules);
}

// `--flag`, `--flag=value`, `--flag value` or `--flag v1 v2 ...`; advances `i` past the words
// read as its value.
void read_flag(const std::vector<ShellWord>& words, std::size_t& i, const ArgumentRules& rules,
               TrainingArgument& argument) {
  const ShellWord& word = words[i];
  std::size_t eq = word.text.find('=');
  argument.spelling = word.text.substr(0, eq);
  SpellingMatch match = name_argument(argument, rules);
  ArgumentTakes takes = match.rule ? match.rule->takes : ArgumentTakes::kValue;
  bool is_switch = match.negated || takes == ArgumentTakes::kSwitch;
  auto value_word = [&](std::size_t j) {
    return j < words.size() && words[j].opaque_array.empty() && !is_flag(words[j]);
  };
  if (eq != std::string::npos) {
    argument.value = word.text.substr(eq + 1);
    argument.value_words = {argument.value};
    if (is_switch) argument.value = switch_value(argument.value);
    if (match.negated) argument.value = argument.value == "true" ? "false" : "true";
  } else if (is_switch) {
    argument.value = match.negated ? "false" : "true";
    argument.valued = false;
  } else if (takes == ArgumentTakes::kValues) {
    std::vector<std::string> values;
    while (value_word(i + 1) && !is_override_word(words[i + 1]) && !is_deletion(words[i + 1])) {
      argument.unevaluated |= words[i + 1].unevaluated;
      values.push_back(words[++i].text);
    }
    argument.value = fmt::format("{}", fmt::join(values, " "));
    argument.value_words = std::move(values);
  } else if (value_word(i + 1) && (match.rule || !is_override_word(words[i + 1])) &&
             !is_deletion(words[i + 1])) {
    argument.unevaluated = words[i + 1].unevaluated;
    argument.value = words[++i].text;
    argument.value_words = {argument.value};
  } else {
    argument.value = match.rule ? "" : "true";  // an unknown flag alone reads as a switch
    argument.valued = false;
  }
}

// `section.key=value`, `+key=value` or `++key=value`.
void read_override(const ShellWord& word, const ArgumentRules& rules, TrainingArgument& argument) {
  std::string_view text = word.text;
  while (!text.empty() && text.front() == '+') text.remove_prefix(1);
  argument.unevaluated = word.unevaluated;
  std::size_t eq = text.find('=');
  argument.spelling = std::string(text.substr(0, eq));
  argument.value = std::string(text.substr(eq + 1));
  argument.value_words = {argument.value};
  SpellingMatch match = name_argument(argument, rules);
  if (match.rule && match.rule->takes == ArgumentTakes::kSwitch)
    argument.value = switch_value(argument.value);
}

// The environment `command` runs with: the exports in effect, then its own `NAME=value` words.
void read_environment(const ShellCommand& command,
                      std::map<std::string, TrainingVariable>& environment) {
  for (const auto& [name, e] : command.environment) environment[name] = {name, e.value, e.line};
  for (const auto& [name, value] : command.assignments)
    environment[name] = {name, value, command.line};
}

// The words of `command` into `out`: its program, external arrays and arguments (one per name,
// the last occurrence's: argparse).
void read_words(const ShellCommand& command, const ArgumentRules& rules, TrainingCommand& out,
                std::map<std::string, TrainingArgument>& arguments) {
  const std::vector<ShellWord>& words = command.words;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const ShellWord& word = words[i];
    if (!word.opaque_array.empty()) {
      if (std::find(out.external_arrays.begin(), out.external_arrays.end(), word.opaque_array) ==
          out.external_arrays.end()) {
        out.external_arrays.push_back(word.opaque_array);
        out.external_array_words.push_back(i);
      }
      continue;
    }
    TrainingArgument argument;
    argument.line = word.line;
    argument.word = i;
    if (is_deletion(word)) {
      read_deletion(word, rules, argument);
    } else if (is_flag(word)) {
      read_flag(words, i, rules, argument);
    } else if (is_override_word(word)) {
      read_override(word, rules, argument);
    } else {
      out.program += (out.program.empty() ? "" : " ") + word.text;
      continue;
    }
    arguments[argument.name] = std::move(argument);  // argparse: the last occurrence wins
  }
}

// The position of the first byte that is not UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t length = c < 0x80           ? 1
                         : (c >> 5) == 0x6  ? 2
                         : (c >> 4) == 0xE  ? 3
                         : (c >> 3) == 0x1E ? 4
                                            : 0;
    if (length == 0 || (length == 2 && c < 0xC2) || i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return i;
    }
    if (length == 3 || length == 4) {  // overlong forms, surrogates, beyond U+10FFFF
      unsigned char d = static_cast<unsigned char>(text[i + 1]);
      if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d > 0x9F) || (c == 0xF0 && d < 0x90) ||
          (c == 0xF4 && d > 0x8F) || c > 0xF4)
        return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

int line_at(std::string_view text, std::size_t at) {
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

}  // namespace

const TrainingArgument* TrainingCommand::find(std::string_view name) const {
  for (const TrainingArgument& argument : arguments) {
    if (argument.name == name) return &argument;
  }
  return nullptr;
}

const TrainingArgument* TrainingCommand::find_spelling(
    std::initializer_list<std::string_view> spellings) const {
  const TrainingArgument* last = nullptr;
  for (const TrainingArgument& argument : arguments) {
    bool named =
        std::find(spellings.begin(), spellings.end(), argument.spelling) != spellings.end();
    if (named && (!last || argument.word > last->word)) last = &argument;
  }
  return last;
}

std::vector<const TrainingArgument*> in_written_order(const TrainingCommand& command) {
  std::vector<const TrainingArgument*> out;
  for (const TrainingArgument& argument : command.arguments) out.push_back(&argument);
  std::sort(out.begin(), out.end(),
            [](const TrainingArgument* a, const TrainingArgument* b) { return a->word < b->word; });
  return out;
}

const ArgumentRules& no_argument_rules() {
  static const ArgumentRules kNone("", {}, {});
  return kNone;
}

TrainingCommand training_command_from_script(const ShellScript& script,
                                             const ArgumentRules& rules) {
  TrainingCommand out;
  for (const ShellWarning& warning : script.warnings)
    out.problems.push_back(command_problem(warning.line, warning.message));
  std::map<std::string, TrainingVariable> environment;
  std::map<std::string, TrainingArgument> arguments;
  const ShellCommand* command = training_command_of(script, out);
  if (!command && script.commands.empty()) {  // the environment the text leaves
    for (const ShellExport& e : script.exports) environment[e.name] = {e.name, e.value, e.line};
  }
  if (command) {
    out.line = command->line;
    read_environment(*command, environment);
    read_words(*command, rules, out, arguments);
  }
  for (auto& [name, argument] : arguments) out.arguments.push_back(std::move(argument));
  for (auto& [name, variable] : environment) out.environment.push_back(std::move(variable));
  return out;
}

std::optional<Problem> text_problem(std::string_view text) {
  if (std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    return command_problem(line_at(text, nul), "not text: a NUL byte (a binary file?)");
  if (std::size_t bad = invalid_utf8_at(text); bad != std::string_view::npos)
    return command_problem(line_at(text, bad), "not text: invalid UTF-8 (a binary file?)");
  return std::nullopt;
}

TrainingCommand read_training_command(std::string_view text, const ArgumentRules& rules) {
  if (std::optional<Problem> problem = text_problem(text)) {
    TrainingCommand out;
    out.problems.push_back(std::move(*problem));
    return out;
  }
  return training_command_from_script(read_shell_script(text), rules);
}

bool has_command(const TrainingCommand& command) { return command.line > 0; }

std::vector<std::string> merge_recipe_environment(TrainingCommand& command,
                                                  const std::vector<TrainingVariable>& recipe_env) {
  std::vector<std::string> messages;
  for (const TrainingVariable& variable : recipe_env) {
    auto it = std::find_if(command.environment.begin(), command.environment.end(),
                           [&](const TrainingVariable& v) { return v.name == variable.name; });
    if (it == command.environment.end()) {
      command.environment.push_back(variable);
    } else if (it->value != variable.value) {
      messages.push_back(fmt::format(
          "env {}: the recipe's env sets {} (line {}) but its run sets {} (line {}); the run's "
          "value is in effect and is the one compared",
          variable.name, variable.value, variable.line, it->value, it->line));
    }
  }
  std::sort(command.environment.begin(), command.environment.end(),
            [](const TrainingVariable& a, const TrainingVariable& b) { return a.name < b.name; });
  return messages;
}

}  // namespace openrecipes
