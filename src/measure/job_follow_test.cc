#include "measure/job_follow.h"

#include <gtest/gtest.h>

#include <vector>

namespace openrecipes {
namespace {

TEST(JobFollow, LatestStepOfAGrowingLog) {
  EXPECT_EQ(latest_step_in_log("> building GPT model ...\n"), std::nullopt);
  EXPECT_EQ(
      latest_step_in_log(
          " [2026-10-13 09:41:06] iteration        1/      20 | consumed samples:          128 | "
          "elapsed time "
          "per iteration (ms): 41872.4 |\n [2026-10-13 09:41:21] iteration        2/      20 | "
          "consumed "
          "samples:          256 |\n[Rank 0] (after 2 iterations) memory (MB) | allocated: 1.0\n"),
      "iteration 2/20");
  EXPECT_EQ(latest_step_in_log("step 3: {'train/loss': 1.25}\nperf 3: {'perf/step_time': 14.1}\n"),
            "step 3");
}

TEST(JobFollow, PollsUntilTheJobEnds) {
  std::vector<std::string> states = {"PENDING", "RUNNING", "COMPLETING", "COMPLETED"};
  std::size_t polls = 0;
  std::vector<std::string> seen;
  FollowOptions options;
  options.poll_interval_s = 0;
  FollowOutcome outcome = follow_job(
      7, "/nonexistent/log",
      [&]() -> std::optional<JobRecord> {
        JobRecord job;
        job.job_id = 7;
        job.state = states[std::min(polls++, states.size() - 1)];
        return job;
      },
      [&](const JobProgress& progress) { seen.push_back(progress.state); }, options);
  ASSERT_TRUE(outcome.job);
  EXPECT_EQ(outcome.job->state, "COMPLETED");
  EXPECT_EQ(seen, states);
  EXPECT_FALSE(outcome.stopped);
}

TEST(JobFollow, StopsWhenAskedAndGivesUpOnALostJob) {
  volatile std::sig_atomic_t stop = 1;
  FollowOptions options;
  options.stop = &stop;
  auto never = []() -> std::optional<JobRecord> { return std::nullopt; };
  EXPECT_TRUE(follow_job(
                  7, "/nonexistent/log", never, [](const JobProgress&) {}, options)
                  .stopped);
  FollowOptions lost;
  lost.poll_interval_s = 0;
  lost.lost_after_s = 0;
  EXPECT_TRUE(follow_job(
                  7, "/nonexistent/log", never, [](const JobProgress&) {}, lost)
                  .lost);
}

}  // namespace
}  // namespace openrecipes
