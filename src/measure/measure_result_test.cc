#include "measure/measure_result.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "test_support.h"

namespace openrecipes {
namespace {

JobRecord completed_job(double seconds) {
  JobRecord job;
  job.job_id = 12;
  job.state = "COMPLETED";
  job.exit_code = "0:0";
  job.start_time_s = 1'800'000'000;
  job.end_time_s = 1'800'000'000 + seconds;
  job.source = "scontrol";
  return job;
}

std::string source(const std::string& relative) { return testing::source_dir() + "/" + relative; }

TEST(MeasureResult, GpuHoursAreGpusTimesAdmissionToFinish) {
  EXPECT_DOUBLE_EQ(scheduler_gpu_hours(8, 1000, 1000 + 1800), 4.0);
}

TEST(MeasureResult, ScoresTheLogWithTheSchedulersGpuHours) {
  // The bundled 20-step Megatron-LM log of 8 GPUs; Slurm says the job held them for 10 minutes.
  ResultBlock block = measured_result(
      completed_job(600), source("tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log"),
      ScoreSetup{8, 128, 8192, 5, 19}, 20);
  EXPECT_EQ(block.steps_per_run, 20);
  ASSERT_TRUE(block.scheduler_gpu_hours);
  EXPECT_NEAR(*block.scheduler_gpu_hours, 8 * 600 / 3600.0, 1e-12);
  std::string yaml = result_block_yaml(block);
  EXPECT_NE(yaml.find("  gpu_hours: 1.34\n  gpu_hours_note: GPUs x (scheduler admission to "
                      "finish), including startup\n"),
            std::string::npos)
      << yaml;
}

TEST(MeasureResult, SchedulerTimesBelowTheWindowsOwnAreFloored) {
  // Slurm says 60 s; the log's window alone took about 205 s on 8 GPUs: the block states the
  // window's time.
  ResultBlock block = measured_result(
      completed_job(60), source("tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log"),
      ScoreSetup{8, 128, 8192, 5, 19}, 20);
  std::string yaml = result_block_yaml(block);
  // Quoted: the note holds ": ".
  EXPECT_NE(yaml.find("gpu_hours_note: \"the window's own GPU time"), std::string::npos) << yaml;
}

TEST(MeasureResult, AJobThatDidNotCompleteGivesNoResult) {
  JobRecord failed = completed_job(60);
  failed.state = "TIMEOUT";
  failed.exit_code = "0:15";
  try {
    measured_result(failed, "/runs/slurm-12.log", ScoreSetup{8, 128, 8192, 5, 19}, 20);
    FAIL() << "a timed-out job was scored";
  } catch (const IoError& error) {
    EXPECT_STREQ(error.what(),
                 "job 12 ended TIMEOUT, exit code 0:15: no result (log: /runs/slurm-12.log)");
  }
}

TEST(MeasureResult, ALogShortOfTheWindowNamesTheJobAndTheLog) {
  std::filesystem::path log = std::filesystem::path(testing::test_temp_dir()) / "short.log";
  std::ofstream(log)
      << " [2026-10-13 09:41:06] iteration        1/      20 | elapsed time per iteration (ms): "
         "1000.0 | "
         "lm loss: 1.0 |\n [2026-10-13 09:41:07] iteration        2/      20 | elapsed time per "
         "iteration (ms): 1000.0 | lm loss: 1.0 |\n";
  try {
    measured_result(completed_job(60), log.string(), ScoreSetup{8, 128, 8192, 5, 19}, 20);
    FAIL() << "a 2-step log was scored";
  } catch (const IoError& error) {
    std::string message = error.what();
    EXPECT_EQ(message.rfind("job 12: ", 0), 0u) << message;
    EXPECT_NE(message.find(log.string()), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace openrecipes
