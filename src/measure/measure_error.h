// What force_step_count (step_count.h) throws for a run command it cannot set the protocol's step
// count in. Only write_sbatch_script catches it, and turns it into a Problem; the rest of the
// measure library reports bad input as Problems and failures outside the process as IoError
// (base/error.h). To go once force_step_count returns Problems itself.
#pragma once

#include <stdexcept>

namespace openrecipes {

/// The command's fault, in one sentence that starts with the field (`run: ...`, `run, line N: ...`).
class MeasureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace openrecipes
