#include "validate/run_settings.h"

#include <fmt/format.h>

#include <charconv>

#include "base/source_text.h"

namespace openrecipes {

std::optional<long long> setting_integer(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
  long long value = 0;
  auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

namespace {

// The rule-free reader (no_argument_rules) plus the one layout flag that takes several words,
// --recompute-modules (Megatron-LM's nargs='*'), so that its every word is its value.
const ArgumentRules& layout_reader_rules() {
  static const ArgumentRules kRules(
      "",
      {ArgumentRule{"recompute_modules",
                    ArgumentClass::kExecution,
                    {"--recompute-modules", "model.recompute_modules"},
                    {},
                    ArgumentTakes::kValues,
                    "",
                    "",
                    {}}},
      {});
  return kRules;
}

}  // namespace

RunView::RunView(const RuleContext& c)
    : c_(c), command_(read_training_command(c.recipe.run, layout_reader_rules())) {
  framework_ = detect_framework(command_);
  // Lines of the command map to lines of the file only in a literal block (`run: |`); folded
  // and quoted scalars rewrap, so their problems point at the `run` key instead.
  const YamlNode* run = c.file.document.root.find("run");
  if (run && run->style == '|') first_line_ = c.file.document.position_of("run").line + 1;
}

SourcePosition RunView::position_of_line(int command_line) const {
  if (command_line <= 0 || first_line_ <= 0) return c_.file.document.position_of("run");
  return {first_line_ + command_line - 1, 1};
}

std::optional<std::size_t> RunView::expansion_word(const std::string& array) const {
  for (std::size_t i = 0; i < command_.external_arrays.size(); ++i) {
    if (command_.external_arrays[i] == array && i < command_.external_array_words.size()) {
      return command_.external_array_words[i];
    }
  }
  return std::nullopt;
}

std::optional<RunSetting> RunView::effective(
    std::initializer_list<std::string_view> spellings) const {
  const TrainingArgument* argument = command_.find_spelling(spellings);
  if (argument && argument->value == "~deleted") argument = nullptr;
  const std::optional<ModelScript>& script = c_.recipe.model_script;
  std::optional<std::size_t> expansion = script ? expansion_word(script->array) : std::nullopt;
  if (script && expansion && (!argument || argument->word < *expansion)) {
    for (std::string_view spelling : spellings) {
      for (const auto& [flag, value] : script->sets) {
        if (flag == spelling) return RunSetting{value, SettingSource::kModelScript, nullptr, flag};
      }
    }
  }
  if (!argument) return std::nullopt;
  return RunSetting{argument->value, SettingSource::kCommand, argument, ""};
}

std::optional<RunSetting> RunView::or_default(std::initializer_list<std::string_view> spellings,
                                              std::optional<std::string> fallback) const {
  if (std::optional<RunSetting> setting = effective(spellings)) return setting;
  if (!fallback) return std::nullopt;
  return RunSetting{*fallback, SettingSource::kDefault, nullptr, ""};
}

bool RunView::switch_on(std::initializer_list<std::string_view> spellings) const {
  std::optional<RunSetting> setting = effective(spellings);
  return setting && setting->value != "false" && setting->value != "False" && setting->value != "0";
}

void RunView::report(const std::string& rule, const std::optional<RunSetting>& at,
                     const std::string& field, std::string message, std::string expected,
                     std::string found) const {
  if (at && at->source == SettingSource::kModelScript) {
    c_.report_at(c_.file.document.position_of("model_script.sets." + at->script_flag), rule, field,
                 fmt::format("{} (model_script.sets {})", message, at->script_flag),
                 std::move(expected), std::move(found));
    return;
  }
  report_argument(rule, at ? at->argument : nullptr, field, std::move(message), std::move(expected),
                  std::move(found));
}

void RunView::report_argument(const std::string& rule, const TrainingArgument* argument,
                              const std::string& field, std::string message, std::string expected,
                              std::string found) const {
  SourcePosition position = c_.file.document.position_of("run");
  if (argument && first_line_ > 0) {
    position = position_of_line(argument->line);
    SourceText source(c_.file.document.text);
    std::size_t at = source.line(position.line).find(argument->spelling);
    if (at != std::string_view::npos) position.column = static_cast<int>(at) + 1;
  }
  // The problem's field is `run`; the recipe field the rule is about leads the message, unless
  // it is `run` itself (a rule about the command alone, such as two switches that exclude each
  // other).
  if (!field.empty() && field != "run") message = fmt::format("{}: {}", field, message);
  c_.report_at(position, rule, "run", std::move(message), std::move(expected), std::move(found));
}

}  // namespace openrecipes
