// The argument classes of rules/arguments.yaml: for each setting of a training command (under its
// canonical name, with every spelling that sets it) and each environment variable, whether a change
// to it is a new experiment (convergence), only another mapping onto the hardware (execution),
// other kernels for the same math (a same-math swap, which needs a component test), or nothing
// that matters to the comparison (benign). The convergence/execution split is Megatron-Bridge's
// (Megatron-Bridge's recipe guide); the same-math swap and its component test are the submission
// guide's (templates/submit.mustache).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/problem.h"
#include "base/yaml_document.h"

namespace openrecipes {

/// The class of a difference between two commands.
enum class ArgumentClass { kExecution, kSameMathSwap, kConvergence, kBenign };

/// The class as rules/arguments.yaml and JSON output spell it: `execution`, `same_math_swap`,
/// `convergence`, `benign`.
std::string_view class_id(ArgumentClass argument_class);

/// The class in words, for tables: `execution`, `same-math swap`, `convergence`, `benign`.
std::string_view class_label(ArgumentClass argument_class);

/// How many words a flag reads after it.
enum class ArgumentTakes {
  kValue,   ///< one word
  kSwitch,  ///< none: present means true
  kValues,  ///< every word up to the next flag (argparse nargs='+')
};

/// One entry of `arguments`: a setting under its canonical name.
struct ArgumentRule {
  std::string name;  ///< canonical name (Megatron-LM's argparse destination where it has one); the
                     ///< rule's id
  ArgumentClass argument_class = ArgumentClass::kConvergence;
  std::vector<std::string> spellings;  ///< `--flag`s and Megatron-Bridge `section.key`s that set it
  std::vector<std::string> negations;  ///< `--no-...` flags that set it to false
  ArgumentTakes takes = ArgumentTakes::kValue;
  std::string component;  ///< same-math swaps: the keyword of the component test it needs
  std::string reason;
  SourcePosition position;  ///< where the rule is written
};

/// One entry of `environment`: a variable, or a family of them (`NCCL_*`).
struct EnvironmentRule {
  std::string name;  ///< exact name, or a prefix followed by `*`
  ArgumentClass argument_class = ArgumentClass::kConvergence;
  std::string component;
  std::string reason;
  SourcePosition position;
};

/// A spelling looked up in the rules: the rule that owns it (nullptr when none does) and whether
/// it is one of the rule's negations.
struct SpellingMatch {
  const ArgumentRule* rule = nullptr;
  bool negated = false;
};

/// The loaded rules with their lookups. Plain data once built; copies are independent.
class ArgumentRules {
 public:
  /// Indexes `arguments` by name and spelling and `environment` by name. Callers have checked
  /// uniqueness (argument_rules_from_yaml does); on a repeat the first entry wins.
  ArgumentRules(std::string file, std::vector<ArgumentRule> arguments,
                std::vector<EnvironmentRule> environment);

  /// The rule that `spelling` (`--tensor-model-parallel-size`, `model.tensor_model_parallel_size`,
  /// `--no-rope-fusion`) belongs to.
  SpellingMatch find_spelling(std::string_view spelling) const;
  /// The rule of a canonical name, or nullptr.
  const ArgumentRule* find(std::string_view name) const;
  /// The rule of an environment variable: its exact entry, else the longest matching prefix
  /// entry, else nullptr.
  const EnvironmentRule* find_environment(std::string_view variable) const;

  /// The rules file, as it was named when loaded (for messages).
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<ArgumentRule> arguments_;
  std::vector<EnvironmentRule> environment_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  std::map<std::string, std::pair<std::size_t, bool>, std::less<>>
      by_spelling_;  ///< index, negated
  std::map<std::string, std::size_t, std::less<>> by_variable_;
};

/// Builds the rules from `document`, which has already passed schema/arguments.schema.yaml, and
/// checks what the schema cannot: canonical names, spellings and variable names are each used
/// once, and a `component` is given exactly for same-math swaps. Returns nullopt when any check
/// fails, adding one problem per finding at the offending field's line (rule `rules.unique` or
/// `rules.component`).
std::optional<ArgumentRules> argument_rules_from_yaml(const YamlDocument& document,
                                                      Problems& problems);

/// Reads `rules_path` with the strict YAML reader, checks it against `schema_path` and builds the
/// rules (argument_rules_from_yaml). Returns nullopt with problems naming file:line:col and the
/// field when either file is missing or malformed, or the rules do not conform.
std::optional<ArgumentRules> load_argument_rules_file(const std::string& rules_path,
                                                      const std::string& schema_path,
                                                      Problems& problems);

/// The catalog's rules: `<root>/rules/arguments.yaml` against
/// `<root>/schema/arguments.schema.yaml`.
std::optional<ArgumentRules> load_argument_rules(const std::filesystem::path& root,
                                                 Problems& problems);

}  // namespace openrecipes
