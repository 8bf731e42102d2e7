// What differs between a candidate training command and its reference: settings under their
// canonical names, environment variables, the program, and arrays defined outside the text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runs/training_command.h"

namespace openrecipes {

/// What a difference is about.
enum class DifferenceKind {
  kArgument,       ///< a setting (TrainingArgument), by canonical name
  kEnvironment,    ///< an environment variable
  kProgram,        ///< the launcher, module or script words
  kExternalArray,  ///< `${NAME[@]}` of an array defined outside the text, on one side only
};

/// One difference. A side that lacks the setting has no value (nullopt).
struct CommandDifference {
  DifferenceKind kind = DifferenceKind::kArgument;
  std::string name;  ///< canonical name, variable name, `program`, or the array's name
  std::optional<std::string> reference;
  std::optional<std::string> candidate;
  std::string reference_spelling;  ///< arguments: as written on each side
  std::string candidate_spelling;
  int reference_line = 0;  ///< 1-based line in each side's command text; 0 when absent
  int candidate_line = 0;
  bool known = true;         ///< arguments: a rule owns the spelling on every side that has it
  bool unevaluated = false;  ///< arguments: a side's value holds an expansion kept as written
};

/// Whether two values set the same thing: equal text, or both numbers of equal value
/// (`1e-5` and `0.00001`, `8192` and `8192.0`).
bool same_value(std::string_view a, std::string_view b);

/// Every difference between the two commands: arguments added, removed or changed (by canonical
/// name, values compared with same_value), then environment variables, then the program, then
/// arrays defined outside the text that only one side expands. Each group is in name order.
std::vector<CommandDifference> diff_training_commands(const TrainingCommand& candidate,
                                                      const TrainingCommand& reference);

}  // namespace openrecipes
