// The measured run's `result` block: the job's log scored under the protocol, with GPU-hours
// from Slurm's own times. A job that did not complete, or a log that cannot be scored, is an
// error naming the job and its log, and gives no block.
#pragma once

#include <string>

#include "measure/slurm_client.h"
#include "runs/result_block.h"
#include "runs/run_score.h"

namespace openrecipes {

/// GPU-hours of a job: `gpus` x (end - start) / 3,600, with start = Slurm's StartTime (admission:
/// the job got its nodes and began, startup included) and end = its EndTime, both seconds.
double scheduler_gpu_hours(int gpus, double start_time_s, double end_time_s);

/// A job that gave no result is a failure of the run Slurm ran, not of the recipe's text: each of
/// these throws IoError (base/error.h) whose path is the log and whose message names the job.

/// Throws IoError naming the job, its state and exit code, and the log, unless the job is
/// COMPLETED (FAILED, TIMEOUT, PREEMPTED, CANCELLED, NODE_FAIL, OUT_OF_MEMORY... all refused), or
/// when Slurm gives no start or end time for it.
void require_completed_job(const JobRecord& job, const std::string& log_path);

/// Reads and scores the log at `log_path` under `setup`; the block's steps per run are the log's
/// and its GPU-hours the scheduler's. Throws IoError (naming the job and the log) when the
/// job did not complete, the log has no step lines, a window step is missing, or the log stops
/// before `steps` steps.
ResultBlock measured_result(const JobRecord& job, const std::string& log_path,
                            const ScoreSetup& setup, int steps);

}  // namespace openrecipes
