// The `run` field of a recipe read as a shell script: its `--flag value` arguments, Hydra-style
// `key=value` overrides (Megatron-Bridge) and `export` lines, each with the line it is on.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openrecipes {

/// One argument of the command.
struct RunArgument {
  std::string name;                  ///< `--tensor-model-parallel-size` or `model.tensor_model_parallel_size`
  std::optional<std::string> value;  ///< the following word, or the part after '='; none for a switch
  int line = 0;                      ///< 0-based line within the run text
};

/// The parsed command.
struct RunCommand {
  std::vector<RunArgument> arguments;                        ///< in order of appearance
  std::vector<std::pair<std::string, std::string>> exports;  ///< `export NAME=value`, in order

  /// The last occurrence of `name` (argparse semantics: the last one wins), or nullptr.
  const RunArgument* find(std::string_view name) const;
  /// The last occurrence among several spellings of one setting, or nullptr.
  const RunArgument* find_any(std::initializer_list<std::string_view> names) const;
};

/// Splits `text` into shell words (quotes, `\`-newline continuations, `$(...)` and `${...}` kept
/// whole, `#` comments dropped) and collects the arguments. A `--flag` takes the next word as its
/// value unless that word starts with `--` or ends the line's command; `--flag=value` and
/// `key=value` are split at '='. Never fails: unknown syntax stays words.
RunCommand parse_run_command(std::string_view text);

}  // namespace openrecipes
