#include "measure/slurm_client.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

TEST(SlurmClient, ReadsSbatchParsable) {
  std::string cluster;
  EXPECT_EQ(parse_sbatch_parsable("4242\n"), 4242);
  EXPECT_EQ(parse_sbatch_parsable("4242;north\n", &cluster), 4242);
  EXPECT_EQ(cluster, "north");
  EXPECT_EQ(parse_sbatch_parsable("sbatch: error: Batch job submission failed"), std::nullopt);
}

// `scontrol show job -o 1` of Slurm 22.05, as printed for a finished job.
constexpr const char* kScontrolJob =
    "JobId=1 JobName=j.sh UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901759 Nice=0 "
    "Account=(null) "
    "QOS=(null) JobState=COMPLETED Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 "
    "Reboot=0 "
    "ExitCode=0:0 RunTime=00:00:02 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-11-29T20:43:11 "
    "EligibleTime=2026-11-29T20:43:11 AccrueTime=2026-11-29T20:43:11 StartTime=2026-11-29T20:43:14 "
    "EndTime=2026-11-29T20:43:16 Deadline=N/A Partition=test AllocNode:Sid=localhost:27170 "
    "NodeList=vm BatchHost=vm "
    "NumNodes=1 NumCPUs=1 Command=/tmp/j.sh WorkDir=/tmp StdOut=/tmp/sl1/out-1.log Power= \n";

TEST(SlurmClient, ReadsScontrolShowJob) {
  auto job = parse_scontrol_job(kScontrolJob);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->job_id, 1);
  EXPECT_EQ(job->state, "COMPLETED");
  EXPECT_EQ(job->exit_code, "0:0");
  EXPECT_EQ(job->partition, "test");
  EXPECT_EQ(job->account, "");
  EXPECT_EQ(job->node_list, "vm");
  ASSERT_TRUE(job->start_time_s && job->end_time_s);
  EXPECT_EQ(*job->end_time_s - *job->start_time_s, 2);
  EXPECT_EQ(job->source, "scontrol");
}

TEST(SlurmClient, ARunningJobHasNoEndYet) {
  std::string running = kScontrolJob;
  running.replace(running.find("JobState=COMPLETED"), 18, "JobState=RUNNING");
  auto job = parse_scontrol_job(running);
  ASSERT_TRUE(job);
  EXPECT_FALSE(job->end_time_s);
  EXPECT_FALSE(parse_scontrol_job("slurm_load_jobs error: Invalid job id specified"));
}

TEST(SlurmClient, ReadsSacct) {
  // sacct -j 77 -X -n -P -o JobID,State,Submit,Start,End,ExitCode,Partition,Account,NodeList
  auto job = parse_sacct_job(
      "77|CANCELLED by "
      "1000|2026-11-02T07:58:00|2026-11-02T08:00:00|2026-11-02T08:30:00|0:15|gpu|proj-a|node[01-04]"
      "\n",
      77);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->state, "CANCELLED");
  EXPECT_EQ(job->exit_code, "0:15");
  EXPECT_EQ(*job->end_time_s - *job->start_time_s, 1800);
  EXPECT_EQ(job->account, "proj-a");
  EXPECT_EQ(job->node_list, "node[01-04]");
  EXPECT_FALSE(parse_sacct_job(
      "78|PENDING|2026-11-02T07:58:00|Unknown|Unknown|0:0|gpu|a|None assigned\n", 77));
  auto pending = parse_sacct_job(
      "78|PENDING|2026-11-02T07:58:00|Unknown|Unknown|0:0|gpu|a|None assigned\n", 78);
  ASSERT_TRUE(pending);
  EXPECT_FALSE(pending->start_time_s);
}

TEST(SlurmClient, TimesAndStates) {
  EXPECT_FALSE(parse_slurm_time("Unknown"));
  EXPECT_FALSE(parse_slurm_time("2026-13-01T00:00:00"));
  EXPECT_EQ(*parse_slurm_time("2026-01-01T00:01:00") - *parse_slurm_time("2026-01-01T00:00:00"),
            60);
  EXPECT_TRUE(is_final_job_state("TIMEOUT"));
  EXPECT_TRUE(is_final_job_state("PREEMPTED"));
  EXPECT_FALSE(is_final_job_state("COMPLETING"));
  EXPECT_EQ(
      parse_cluster_name("Configuration data as of x\nClusterName             = north\nx = y\n"),
      "north");
}

}  // namespace
}  // namespace openrecipes
