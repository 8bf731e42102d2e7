// A training command as a set of settings under canonical names: the shell script read
// (shell_reader.h), its training command picked out, and each flag or Megatron-Bridge override
// mapped through rules/arguments.yaml, so that `--tensor-model-parallel-size 2` and
// `model.tensor_model_parallel_size=2` are the same setting with the same value.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/problem.h"
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
  bool unevaluated = false;  ///< the value holds an expansion the reader keeps as written
                             ///< (`$(...)`, `$((...))`, an undefined `$NAME`)
  bool valued = true;        ///< false for a flag written alone, read as a switch (value `true` or
                             ///< `false`)
  std::vector<std::string> value_words;  ///< the words read as the value, as written: one, several
                                         ///< (`takes: values`), none for a switch or a deletion
  std::size_t word = 0;  ///< 0-based index of the spelling's word in the command, so that the
                         ///< last of several spellings written can be told
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
  std::vector<std::size_t>
      external_array_words;         ///< for each of external_arrays, the 0-based word of its first
                                    ///< expansion (compare with TrainingArgument::word)
  int line = 0;                     ///< line of the command's first word; 0 when the text has none
  std::vector<int> other_commands;  ///< lines of the other commands with flags or overrides
  /// Why the command cannot be compared, empty when it can: the text is not text, holds no
  /// command, holds several that could each be the training command, or is shell bash would
  /// reject or read otherwise than it looks (shell_reader.h's warnings). Each has rule
  /// `run.command` and position.line the 1-based line in the text (0: the text as a whole,
  /// column 0; else column 1); file and field are empty, for the caller to name.
  Problems problems;

  /// The argument named `name` (a canonical name), or nullptr.
  const TrainingArgument* find(std::string_view name) const;
  /// The argument last written (argparse: the last occurrence wins) under one of `spellings`
  /// (`--tensor-model-parallel-size`, `model.tensor_model_parallel_size`), or nullptr.
  const TrainingArgument* find_spelling(std::initializer_list<std::string_view> spellings) const;
};

/// The command's arguments in the order they are written (by the word of each one's last
/// occurrence), for writers that keep the command's order.
std::vector<const TrainingArgument*> in_written_order(const TrainingCommand& command);

/// Rules that know no spelling, for readers without the catalog's rules/arguments.yaml
/// (validate's run.layout rule, measure's step count): every flag reads the next word as its
/// value unless that word is a flag, an override or an undefined array, and alone is a switch.
const ArgumentRules& no_argument_rules();

/// Picks the training command out of `script` and reads its words with `rules`: `--flag value`,
/// `--flag=value`, switches (`true`, or `false` for a negation such as `--no-rope-fusion`),
/// multi-word values, `section.key=value` overrides (a Bridge switch's `True`/`False` read as
/// `true`/`false`) with Hydra's `+key=value` and `++key=value`, and Hydra's deletion `~key` (value
/// `~deleted`). A flag no rule knows reads the next word as its value unless that word is a flag,
/// an override or an undefined array. The environment is what is exported when the command runs,
/// then its own `NAME=value` words.
///
/// The training command: among the simple commands with at least one flag or override, those
/// whose program is a launcher (`python`, `python3`, `torchrun`, `deepspeed`, `accelerate`, `ray`,
/// `srun`, `mpirun`, `uv`) when there are any, and of those the one with the most flags and
/// overrides. A tie between commands that are not word for word the same is a problem (which one
/// runs cannot be told); so is a text with no command at all, with several commands none of which
/// has a flag or override, or with several that have some and no launcher (a log, not a
/// command). A text with one command and no options
/// uses that command. Each shell warning is a problem. The other commands with options are listed
/// in other_commands. Never throws.
TrainingCommand training_command_from_script(const ShellScript& script, const ArgumentRules& rules);

/// A problem (rule `run.command`, at its 1-based line) when `text` is not text a shell reads: a
/// NUL byte or invalid UTF-8; nullopt for text.
std::optional<Problem> text_problem(std::string_view text);

/// text_problem, then read_shell_script and training_command_from_script. A caller checks
/// `problems` before comparing: each names a line of `text` (0: the text as a whole).
TrainingCommand read_training_command(std::string_view text, const ArgumentRules& rules);

/// Whether the text held a training command (it may still have problems).
bool has_command(const TrainingCommand& command);

/// Adds a recipe's `env:` mapping to the command's environment. The run's own exports and
/// `NAME=value` words are set after the recipe's environment, so theirs win; each variable both set
/// to different values gives a message naming both lines (lines as each side gives them).
std::vector<std::string> merge_recipe_environment(TrainingCommand& command,
                                                  const std::vector<TrainingVariable>& recipe_env);

}  // namespace openrecipes
