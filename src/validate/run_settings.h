// The run command as validate's run rules read it: which framework runs it, the effective value
// of each term (the command's flag, else what `model_script.sets` says the expanded array sets,
// else the framework's documented default), and problems reported at the command's own lines.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "runs/run_framework.h"
#include "runs/training_command.h"
#include "validate/recipe_rules.h"

namespace openrecipes {

/// Where an effective value comes from.
enum class SettingSource { kCommand, kModelScript, kDefault };

/// One term's effective value.
struct RunSetting {
  std::string value;  ///< as written; `true` for a switch, `false` for its negation
  SettingSource source = SettingSource::kCommand;
  const TrainingArgument* argument = nullptr;  ///< the command's argument, for kCommand
  std::string script_flag;                     ///< the `model_script.sets` key, for kModelScript
};

/// A recipe's run command, read once for every run rule.
class RunView {
 public:
  /// Reads `c.recipe.run` with the rule-free reader (runs/training_command.h) and maps its lines
  /// to the file's where `run` is a literal block (`run: |`).
  explicit RunView(const RuleContext& c);

  const TrainingCommand& command() const { return command_; }
  RunFramework framework() const { return framework_; }
  const RuleContext& context() const { return c_; }

  /// The effective value of the term spelled one of `spellings`: the command's last argument
  /// under them (a Hydra deletion `~key` unsets it), or the recipe's `model_script.sets` value
  /// for one of them. The sets count as written where the array is expanded (argparse keeps the
  /// last occurrence): a command flag after the expansion wins, one before it loses. nullopt when
  /// neither states it; a framework default is the caller's (`or_default`).
  std::optional<RunSetting> effective(std::initializer_list<std::string_view> spellings) const;
  /// effective, else `fallback` (source kDefault) when it is set.
  std::optional<RunSetting> or_default(std::initializer_list<std::string_view> spellings,
                                       std::optional<std::string> fallback) const;
  /// Whether a switch is on: stated and not `false`/`False`/`0`.
  bool switch_on(std::initializer_list<std::string_view> spellings) const;

  /// Reports a problem under `rule` about `field` (field `run`; the message leads with `field`
  /// unless it is `run`): at the setting's line in the file (the
  /// command's line for kCommand, the `model_script.sets` key for kModelScript), else at `run`.
  void report(const std::string& rule, const std::optional<RunSetting>& at,
              const std::string& field, std::string message, std::string expected,
              std::string found) const;
  /// report, at the argument's line (nullptr: the `run` key).
  void report_argument(const std::string& rule, const TrainingArgument* argument,
                       const std::string& field, std::string message, std::string expected,
                       std::string found) const;

  /// The file position of the command's 1-based line `command_line` (column 1), or the `run`
  /// key's where the block does not map line for line or the line is 0.
  SourcePosition position_of_line(int command_line) const;
  /// The 0-based word of the first expansion of `array`, or nullopt when the run does not expand
  /// it.
  std::optional<std::size_t> expansion_word(const std::string& array) const;

 private:
  const RuleContext& c_;
  TrainingCommand command_;
  RunFramework framework_ = RunFramework::kUnknown;
  int first_line_ = 0;
};

/// The integer a value writes (`8`, `+8`), or nullopt for anything else (`$TP`, `8k`).
std::optional<long long> setting_integer(const std::string& text);

}  // namespace openrecipes
