#include "measure/measure_result.h"

#include <fmt/format.h>

#include "base/error.h"
#include "figures/figures.h"
#include "runs/training_log.h"

namespace openrecipes {

double scheduler_gpu_hours(int gpus, double start_time_s, double end_time_s) {
  return gpu_hours(gpus, end_time_s - start_time_s);
}

void require_completed_job(const JobRecord& job, const std::string& log_path) {
  if (job.state != "COMPLETED") {
    std::string exit = job.exit_code.empty() ? "" : fmt::format(", exit code {}", job.exit_code);
    throw IoError(log_path, fmt::format("job {} ended {}{}: no result (log: {})", job.job_id,
                                        job.state, exit, log_path));
  }
  if (!job.start_time_s || !job.end_time_s || *job.end_time_s < *job.start_time_s) {
    throw IoError(log_path,
                  fmt::format("job {}: {} gives no start and end time, so no GPU-hours (log: {})",
                              job.job_id, job.source, log_path));
  }
}

ResultBlock measured_result(const JobRecord& job, const std::string& log_path,
                            const ScoreSetup& setup, int steps) {
  require_completed_job(job, log_path);
  ResultBlock block;
  block.setup = setup;
  Problems problems;
  std::optional<TrainingLog> log = read_training_log(log_path, problems);
  std::optional<RunScore> score = log ? score_run(*log, setup, problems) : std::nullopt;
  if (!score) {
    std::string message = format_problem_line(problems.front());
    if (message.find(log_path) == std::string::npos) message += fmt::format(" (log: {})", log_path);
    throw IoError(log_path, fmt::format("job {}: {}", job.job_id, message));
  }
  block.score = *score;
  block.steps_per_run = log->total_steps.value_or(block.score.steps_in_log);
  if (block.score.steps_in_log < steps) {
    throw IoError(log_path,
                  fmt::format("job {}: the log stops after step {} of the protocol's {} (log: {})",
                              job.job_id, block.score.steps_in_log - 1, steps, log_path));
  }
  block.scheduler_gpu_hours = scheduler_gpu_hours(setup.gpus, *job.start_time_s, *job.end_time_s);
  return block;
}

}  // namespace openrecipes
