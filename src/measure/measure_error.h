// The one error of `openrecipes measure`'s library: a recipe it cannot measure, a Slurm command
// that failed, a job that did not finish its run. The message says what happened and, once a job
// exists, names the job id and its log.
#pragma once

#include <stdexcept>

namespace openrecipes {

/// What went wrong, in one sentence a user can act on.
class MeasureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace openrecipes
