// InputError: the one exception for bad input (docs/architecture.md, "Errors"), for the few
// places that find it deep inside a computation where no Problems list reaches.
#pragma once

#include <utility>

#include "base/error.h"
#include "base/problem.h"

namespace openrecipes {

/// Bad input that only shows deep inside a computation: a tokenizer's pre-tokenizer pattern that
/// PCRE2 gives up on while encoding (its match limit or JIT stack limit, which no check at load
/// can foresee). `problem()` names the file, the field, what was expected and what was found;
/// `main` prints it as every command prints its problems (print_problems) and exits 1.
class InputError : public Error {
 public:
  explicit InputError(Problem problem)
      : Error(format_problem_line(problem)), problem_(std::move(problem)) {}
  /// The problem, as print_problems prints it.
  const Problem& problem() const { return problem_; }

 private:
  Problem problem_;
};

}  // namespace openrecipes
