// A training command as a set of settings under canonical names: the shell script read
// (shell_reader.h), its training command picked out, and each flag or Megatron-Bridge override
// mapped through rules/arguments.yaml, so that `--tensor-model-parallel-size 2` and
// `model.tensor_model_parallel_size=2` are the same setting with the same value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runs/argument_rules.h"
#include "runs/shell_reader.h"

namespace openrecipes {

/// One setting of the command.
struct TrainingArgument {
  std::string name;      ///< the rule's canonical name; the spelling itself when no rule knows it
  std::string spelling;  ///< as written: `--no-rope-fusion`, `model.tensor_model_parallel_size`
  std::string value;     ///< switches: `true` or `false`; several words: joined by one space
  int line = 0;          ///< 1-based line of the spelling in the command text
  bool known = false;    ///< a rule owns the spelling
};

/// One environment variable the command runs with.
struct TrainingVariable {
  std::string name;
  std::string value;
  int line = 0;
};

/// The training command of a script.
struct TrainingCommand {
  std::string program;  ///< the words that are neither flags nor their values (launcher, module,
                        ///< script), joined
  std::vector<TrainingArgument>
      arguments;  ///< one per name, the last occurrence's value (argparse), sorted by name
  std::vector<TrainingVariable>
      environment;  ///< exports and the command's `NAME=value` words, last wins, sorted by name
  std::vector<std::string>
      external_arrays;  ///< arrays expanded but not defined in the text (`MODEL_ARGS`), in order
  int line = 0;         ///< line of the command's first word; 0 when the text has none

  /// The argument named `name`, or nullptr.
  const TrainingArgument* find(std::string_view name) const;
};

/// Picks the training command out of `script` (the simple command with the most flags and
/// overrides; the last of equals) and reads its words with `rules`: `--flag value`, `--flag=value`,
/// switches (`true`, or `false` for a negation such as `--no-rope-fusion`), multi-word values, and
/// `section.key=value` overrides (a Bridge switch's `True`/`False` read as `true`/`false`). A flag
/// no rule knows reads the next word as its value unless that word is a flag, an override or an
/// undefined array. Never fails; a script without a command gives an empty TrainingCommand.
TrainingCommand training_command_from_script(const ShellScript& script, const ArgumentRules& rules);

/// read_shell_script, then training_command_from_script.
TrainingCommand read_training_command(std::string_view text, const ArgumentRules& rules);

}  // namespace openrecipes
