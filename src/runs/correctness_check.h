// `openrecipes check`: the recipe's correctness evidence composed (docs/run-evidence.md): the
// recipe validates, every argument that differs from the reference has a class and passes, each
// same-math swap has a passed component test, every listed component test passed, and the loss
// curves converge. Each part is recomputed when its inputs are given, else taken as the recipe
// states it, and the output says which.
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
};

/// One part of the check and how it was decided.
struct CorrectnessPart {
  std::string name;  ///< validation, configuration, component tests, convergence
  bool passed = false;
  bool recomputed = false;  ///< false: taken as the recipe states it
  std::string detail;       ///< one line: what was found
};

/// The composed result.
struct CorrectnessCheck {
  std::vector<CorrectnessPart> parts;
  bool passed() const;
  /// "passed; ..." or "failed: ..." in one line, for `correctness.summary`.
  std::string summary() const;
};

/// Composes the parts for `recipe` from `inputs`.
CorrectnessCheck check_correctness(const Recipe& recipe, const CorrectnessInputs& inputs);

/// The recipe's `correctness:` block with the composed result, configuration and convergence
/// (from the logs when compared, else the recipe's own), and the recipe's component tests,
/// reference and rules.
std::string correctness_block_yaml(const Recipe& recipe, const CorrectnessInputs& inputs,
                                   const CorrectnessCheck& check);

}  // namespace openrecipes
