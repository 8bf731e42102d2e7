// The `<...>` placeholders of a recipe's `run` (`python3 -m <slime entry module> ...`) and their
// filling by `openrecipes measure --set NAME=VALUE` (docs/measure.md, "Placeholders"). Bash reads
// an unfilled `<slime entry module>` as redirections, so the job would fail only after its
// allocation is granted: measure refuses one before anything is submitted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/problem.h"

namespace openrecipes {

/// One placeholder of the run: its name (the text between `<` and `>`) and where it is.
struct Placeholder {
  std::string name;  ///< `slime entry module`
  int line = 0;      ///< 1-based line of the run text
};

/// A placeholder measure documents, with what its value must be.
struct DocumentedPlaceholder {
  std::string name;        ///< as recipes write it: `slime entry module`
  std::string value_rule;  ///< in words, for --help and problems
  std::string example;     ///< a value, e.g. `train_async`
  bool python_module;      ///< the value must be a dotted Python module name
};

/// The documented list (docs/measure.md): `slime entry module`, the module slime's scripts run
/// (THUDM/slime train.py or train_async.py at the checkout's root, run as `python3 -m train` or
/// `python3 -m train_async` from that folder).
const std::vector<DocumentedPlaceholder>& documented_placeholders();

/// Every placeholder in the words and exported values of `run` as runs/shell_reader.h reads it
/// (comments and redirections are not words; `<in.txt` is a redirection), once per name and
/// line, in order of line.
std::vector<Placeholder> find_placeholders(std::string_view run);

/// Whether `key` (a --set NAME) names `name`: compared ignoring ASCII case, with ' ', '_' and
/// '-' alike, so that `slime-entry-module` names `slime entry module`.
bool placeholder_key_matches(std::string_view key, std::string_view name);

/// What `name` takes, as an "expected" text, when `value` cannot fill it; nullopt when it can. A
/// documented Python-module placeholder takes a dotted Python name (`train_async`); any other takes
/// a non-empty value of letters, digits and `_ . / : = @ % + , -`, which the shell reads as itself
/// in any quoting, so that the value is written into the run as it is.
std::optional<std::string> placeholder_value_problem(std::string_view name, std::string_view value);

/// `run` with every `<name>` whose name a key of `values` names (placeholder_key_matches)
/// replaced by its value. Values must have passed placeholder_value_problem.
std::string fill_placeholders(std::string run,
                              const std::vector<std::pair<std::string, std::string>>& values);

}  // namespace openrecipes
