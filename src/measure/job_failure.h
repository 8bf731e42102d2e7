// Why a measured job gave no result, read from Slurm's final state and the job's log, so that a
// tuner can act on it (docs/tune.md, "Failures"): a layout that ran out of memory tightens the
// memory model's margin for its neighbours, a crash is reported and not retried, a node failure
// is the cluster's and may be retried.
#pragma once

#include <string>
#include <string_view>

#include "measure/slurm_client.h"

namespace openrecipes {

/// What ended a job without a result.
enum class JobFailureKind {
  kOutOfMemory,  ///< GPU or host memory: Slurm's OUT_OF_MEMORY, or PyTorch's/CUDA's message
  kTimeout,      ///< Slurm's TIMEOUT or DEADLINE: the time limit ended it
  kCrash,        ///< anything else the run did: an error exit, a signal, a log without a result
  kNodeFailure,  ///< the cluster's: NODE_FAIL, BOOT_FAIL, PREEMPTED
};

/// A classified failure.
struct JobFailure {
  JobFailureKind kind = JobFailureKind::kCrash;
  /// The log line or Slurm state that decided it (for a crash, the state and the last log line
  /// naming an error), at most 300 bytes.
  std::string detail;
};

/// The session file's word for `kind`: "oom", "timeout", "crash" or "node_failure".
std::string job_failure_word(JobFailureKind kind);

/// Classifies a job that gave no result from its final record `job` (state and exit code) and the
/// end of its log `log_tail` (the last few KiB: a framework prints its fatal error last).
/// Out of memory wins over a FAILED state when the log shows PyTorch's `OutOfMemoryError` /
/// `CUDA out of memory` (torch/csrc/cuda/CUDACachingAllocator.cpp's message), CUDA's
/// `cudaErrorMemoryAllocation` / `CUDA error: out of memory`, NCCL's `Failed to CUDA calloc`, or
/// the kernel's `oom-kill` / `Out of memory: Killed process`. Slurm's states:
/// https://slurm.schedmd.com/squeue.html#SECTION_JOB-STATE-CODES. A COMPLETED job whose log gave
/// no score is a crash (the run stopped early or printed no steps).
JobFailure classify_job_failure(const JobRecord& job, std::string_view log_tail);

}  // namespace openrecipes
