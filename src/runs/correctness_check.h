// `openrecipes check`: the recipe's correctness evidence composed (docs/run-evidence.md): the
// recipe validates, every argument that differs from the reference has a class and passes, each
// same-math swap has a passed component test, every listed component test passed, and the loss
// curves converge. Each part is recomputed when its inputs are given, else taken as the recipe
// states it, and the output says which. A part taken as stated is not evidence: the result is
// `unverified` (exit 1) unless the caller accepts the recipe's statement (`--accept-stated`), and
// then the result says in words which parts were taken as stated (docs/run-evidence.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/recipe.h"
#include "runs/argument_classifier.h"
#include "runs/convergence.h"

namespace openrecipes {

/// What `check` found out.
struct CorrectnessInputs {
  Problems validation;                           ///< validate's problems with the recipe
  std::optional<Classification> classification;  ///< against the reference, when one was given
  std::string reference;                         ///< the reference as named (file), or empty
  std::optional<ConvergenceResult> convergence;  ///< from the two logs, when given
  bool accept_stated = false;  ///< --accept-stated: a part taken as stated may pass the check
};

/// One part of the check and how it was decided.
struct CorrectnessPart {
  std::string name;         ///< validation, configuration, component tests, convergence
  bool passed = false;      ///< the evidence (recomputed, or the recipe's statement) says pass
  bool recomputed = false;  ///< false: taken as the recipe states it
  std::string detail;       ///< one line: what was found
  /// "pass" (recomputed and passed), "fail" (a recomputed or stated failure) or "unverified"
  /// (the recipe states a pass that this command did not check).
  std::string status() const;
};

/// The composed result.
struct CorrectnessCheck {
  std::vector<CorrectnessPart> parts;
  bool accept_stated = false;  ///< from CorrectnessInputs::accept_stated
  /// "fail" when any part fails; else "unverified" when a part is unverified and the stated
  /// evidence was not accepted; else "pass". Empty parts: "fail".
  std::string result() const;
  bool passed() const { return result() == "pass"; }
  /// Whether the pass rests on parts taken as stated (accept_stated, some part not recomputed).
  bool passed_on_stated() const;
  /// The result in words for the `result:` line: "pass", "fail", "unverified (...)" or
  /// "pass (stated, not verified: convergence taken from the recipe as stated, --accept-stated)".
  std::string result_text() const;
  /// "passed; ...", "unverified: ..." or "failed: ..." in one line, for `correctness.summary`.
  std::string summary() const;
};

/// Composes the parts for `recipe` from `inputs`. Validation is always recomputed;
/// configuration and component-test coverage need `inputs.classification` (--reference), and
/// convergence needs `inputs.convergence` (both logs); without them each part is the recipe's
/// statement, `unverified` unless `inputs.accept_stated`.
CorrectnessCheck check_correctness(const Recipe& recipe, const CorrectnessInputs& inputs);

/// The recipe's `correctness:` block with the composed result (`pass`, `fail`, or `unverified`,
/// which the schema's pass/fail refuses, so that an unchecked block cannot be pasted into a
/// verified recipe), configuration and convergence
/// (from the logs when compared, else the recipe's own), and the recipe's component tests,
/// reference and rules.
std::string correctness_block_yaml(const Recipe& recipe, const CorrectnessInputs& inputs,
                                   const CorrectnessCheck& check);

}  // namespace openrecipes
