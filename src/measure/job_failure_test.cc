#include "measure/job_failure.h"

#include <gtest/gtest.h>

#include <string>

namespace openrecipes {
namespace {

JobRecord ended(const std::string& state, const std::string& exit_code = "1:0") {
  JobRecord job;
  job.job_id = 7;
  job.state = state;
  job.exit_code = exit_code;
  return job;
}

// PyTorch 2.x's message when the caching allocator cannot allocate (CUDACachingAllocator.cpp),
// as it reaches a log through a rank's traceback.
constexpr const char* kTorchOom =
    " [2026-10-13 09:41:06] iteration        1/      20 | consumed samples:          128 |\n"
    "Traceback (most recent call last):\n"
    "  File \"pretrain_gpt.py\", line 311, in <module>\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
    "capacity of 139.72 GiB of which 1.23 GiB is free.\n"
    "[rank0]:[W1013 09:41:07] ProcessGroupNCCL.cpp:1496] Warning: destroy_process_group() was not "
    "called\n";

TEST(JobFailure, PyTorchsOutOfMemoryInTheLogIsOomThoughSlurmSaysFailed) {
  JobFailure failure = classify_job_failure(ended("FAILED"), kTorchOom);
  EXPECT_EQ(failure.kind, JobFailureKind::kOutOfMemory);
  EXPECT_EQ(job_failure_word(failure.kind), "oom");
  EXPECT_EQ(failure.detail.rfind("torch.OutOfMemoryError: CUDA out of memory.", 0), 0u)
      << failure.detail;
}

TEST(JobFailure, SlurmStatesDecideTimeoutNodeFailureAndHostOom) {
  EXPECT_EQ(classify_job_failure(ended("TIMEOUT", "0:15"), "").kind, JobFailureKind::kTimeout);
  EXPECT_EQ(classify_job_failure(ended("DEADLINE"), "").kind, JobFailureKind::kTimeout);
  EXPECT_EQ(classify_job_failure(ended("NODE_FAIL", "0:0"), kTorchOom).kind,
            JobFailureKind::kNodeFailure);
  EXPECT_EQ(classify_job_failure(ended("PREEMPTED"), "").kind, JobFailureKind::kNodeFailure);
  EXPECT_EQ(classify_job_failure(ended("BOOT_FAIL"), "").kind, JobFailureKind::kNodeFailure);
  JobFailure host = classify_job_failure(ended("OUT_OF_MEMORY", "0:125"), "");
  EXPECT_EQ(host.kind, JobFailureKind::kOutOfMemory);
  EXPECT_EQ(host.detail, "Slurm: OUT_OF_MEMORY");
}

TEST(JobFailure, AnyOtherEndIsACrashNamingTheStateAndTheLastLine) {
  JobFailure crash = classify_job_failure(
      ended("FAILED", "1:0"),
      "iteration 3\nRuntimeError: CUDA error: an illegal memory access was encountered\n"
      "srun: error: gpu-a01: task 0: Exited with exit code 1\n"
      "openrecipes measure: the run ended with exit status 1\n\n");
  EXPECT_EQ(crash.kind, JobFailureKind::kCrash);
  EXPECT_EQ(job_failure_word(crash.kind), "crash");
  EXPECT_EQ(crash.detail,
            "Slurm: FAILED, exit code 1:0; log: RuntimeError: CUDA error: an illegal memory access "
            "was encountered");
  // A job that completed but left no score (it stopped early) is the run's fault too.
  EXPECT_EQ(classify_job_failure(ended("COMPLETED", "0:0"), "").kind, JobFailureKind::kCrash);
  // Without an error line, the last line is the best there is.
  EXPECT_EQ(classify_job_failure(ended("FAILED"), "step 3\nstep 4\n").detail,
            "Slurm: FAILED, exit code 1:0; log: step 4");
  EXPECT_EQ(job_failure_word(JobFailureKind::kTimeout), "timeout");
  EXPECT_EQ(job_failure_word(JobFailureKind::kNodeFailure), "node_failure");
}

TEST(JobFailure, TheDetailIsAtMost300Bytes) {
  std::string long_line(1000, 'x');
  EXPECT_LE(classify_job_failure(ended("FAILED"), long_line).detail.size(), 300u);
  EXPECT_LE(classify_job_failure(ended("FAILED"), "CUDA out of memory" + long_line).detail.size(),
            300u);
}

}  // namespace
}  // namespace openrecipes
