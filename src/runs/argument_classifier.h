// The classes of the differences between a candidate training command and its reference, and
// the verdict: what the submission guide's correctness check (step 4 of templates/submit.mustache)
// asks of every differing argument. Classes come from rules/arguments.yaml (argument_rules.h),
// whose convergence/execution split is Megatron-Bridge's (its recipe guide).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/recipe.h"
#include "runs/argument_rules.h"
#include "runs/command_diff.h"
#include "runs/training_command.h"

namespace openrecipes {

/// One difference with its class. Unknown (no class) when no rule names the argument or
/// variable, when the programs differ, when only one side expands an array defined elsewhere, or
/// when a value is not evaluated (`$(...)`, `$((...))`, an undefined `$NAME`) and the rule's
/// class is not benign: the values may be equal, and the reader cannot tell.
struct ClassifiedDifference {
  CommandDifference difference;
  std::optional<ArgumentClass> argument_class;  ///< nullopt: unknown, which fails the check
  std::string rule;  ///< the rule's name (an argument) or pattern (a variable); empty when unknown
  std::string reason;     ///< the rule's reason, or why it is unknown
  std::string component;  ///< same-math swaps: the component test it needs
};

/// A component test that the same-math swaps need, and what the candidate lists for it.
struct ComponentCheck {
  enum class Status {
    kPassed,   ///< a test whose name holds the keyword passed
    kFailed,   ///< such tests are listed, none passed
    kMissing,  ///< none is listed (or the candidate is a bare command, which lists none)
  };
  std::string component;               ///< the rule's keyword, e.g. `dispatcher`
  std::vector<std::string> needed_by;  ///< names of the differences that need it
  Status status = Status::kMissing;
  std::string test;  ///< the matching test's name (kPassed, kFailed)
};

/// The outcome, worst first.
enum class Verdict {
  kUnknownArguments,     ///< some difference has no rule: fails
  kConvergenceChange,    ///< a new experiment: fails
  kNeedsComponentTests,  ///< a same-math swap without a passed component test: fails
  kSwapsCovered,   ///< same-math swaps, each with a passed component test (and execution, benign)
  kExecutionOnly,  ///< execution and benign differences only
  kBenignOnly,     ///< benign differences only
  kSame,           ///< no difference
};

/// The verdict's id for JSON: `unknown_arguments`, `convergence_change`, `needs_component_tests`,
/// `swaps_covered`, `execution_only`, `benign_only`, `same`.
std::string_view verdict_id(Verdict verdict);

/// The classified differences and the verdict.
struct Classification {
  std::vector<ClassifiedDifference>
      differences;  ///< unknown first, then convergence, same-math swap, execution, benign
  std::vector<ComponentCheck> components;  ///< in order of first need
  std::vector<std::string> notes;          ///< what was not compared, and why
  Verdict verdict = Verdict::kSame;

  /// True when the check passes: same, benign only, execution only, or every swap covered.
  bool passes() const;
  /// The verdict in words: `execution only`, `needs component tests: dispatcher`, ...
  std::string verdict_text() const;
};

/// Whether a component test named `test_name` is one for `component`: the keyword appears in the
/// name, ignoring case and treating `-`, `_` and runs of spaces alike (`cross-entropy` matches
/// "TE cross entropy fusion against native").
bool component_matches(std::string_view component, std::string_view test_name);

/// Diffs the two commands (diff_training_commands) and classes each difference with `rules`.
/// `candidate_tests` is the candidate recipe's `correctness.component_tests`, or nullopt when the
/// candidate is a bare command (then every needed component test is missing). Arrays both sides
/// expand from outside the text are noted, not compared.
Classification classify_commands(const TrainingCommand& candidate, const TrainingCommand& reference,
                                 const ArgumentRules& rules,
                                 const std::optional<std::vector<ComponentTest>>& candidate_tests);

}  // namespace openrecipes
