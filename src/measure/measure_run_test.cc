#include "measure/measure_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "base/error.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// A Slurm that "runs" a job by copying a finished log beside the script: the workflow without a
// cluster.
class FakeSlurm : public SlurmApi {
 public:
  bool on_path = true;
  std::string final_state = "COMPLETED";
  std::string log;       // the log the job "writes"
  std::string versions;  // what its version dump "prints"
  mutable std::vector<std::string> calls;

  bool available() const override { return on_path; }
  std::int64_t submit(const std::string& script_path, std::string* cluster) const override {
    calls.push_back("submit " + script_path);
    std::string dir = fs::path(script_path).parent_path().string();
    fs::copy_file(log, job_log_path(dir, 12), fs::copy_options::overwrite_existing);
    std::ofstream(job_versions_path(dir, 12)) << versions;
    *cluster = "acme-cluster";
    return 12;
  }
  std::optional<JobRecord> job(std::int64_t job_id) const override {
    calls.push_back("job");
    return record(job_id);
  }
  std::optional<JobRecord> finished_job(std::int64_t job_id) const override {
    calls.push_back("finished_job");
    return record(job_id);
  }
  std::string cancel(std::int64_t job_id) const override {
    calls.push_back("cancel " + std::to_string(job_id));
    return "";
  }
  std::string cluster_name() const override { return "acme-cluster"; }

 private:
  JobRecord record(std::int64_t job_id) const {
    JobRecord job;
    job.job_id = job_id;
    job.state = final_state;
    job.exit_code = final_state == "COMPLETED" ? "0:0" : "1:0";
    job.start_time_s = 1'800'000'000;
    job.end_time_s = 1'800'000'600;
    job.account = "acme-research";
    job.partition = "debugq";
    job.node_list = "gpu-a[01-02]";
    job.source = "sacct";
    return job;
  }
};

// Keeps the notes; stops when told to.
class RecordingObserver : public MeasureObserver {
 public:
  std::vector<std::string> notes;
  volatile std::sig_atomic_t stop = 0;
  bool stop_on_progress = false;  // as Ctrl-C while the job runs
  void note(const std::string& sentence) override { notes.push_back(sentence); }
  void progress(const JobProgress&) override {
    if (stop_on_progress) stop = 1;
  }
  const volatile std::sig_atomic_t* stop_flag() const override { return &stop; }
};

Recipe eight_gpu_recipe() {
  Recipe recipe;
  recipe.model = "gpt-oss-20b";
  recipe.gpu.type = "H200";
  recipe.gpu.count = 8;
  recipe.gpu.per_node = 8;
  recipe.workload.global_batch = 128;
  recipe.workload.row_tokens = 8192;
  recipe.run = "torchrun pretrain_gpt.py --train-iters 12 --log-interval 1\n";
  return recipe;
}

class MeasureRun : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = testing::fresh_dir("measure_run");
    fs::remove_all(out_);  // measure makes its output folder itself
    slurm_.log = testing::source_dir() + "/tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log";
    slurm_.versions =
        "pytorch: 2.11.0\ntransformer_engine: 2.10.0 (built in /opt/te for "
        "acme-research)\n";
    request_.recipe_file = "recipes/x/h200/eight.yaml";
    request_.account = "acme-research";
    request_.out_dir = out_.string();
    request_.poll_interval_s = 0.1;
  }
  std::optional<MeasuredRun> measure(const Recipe& recipe) {
    return measure_recipe(recipe, catalog_, request_, slurm_, observer_, problems_);
  }
  fs::path out_;
  FakeSlurm slurm_;
  RecordingObserver observer_;
  MeasureRequest request_;
  Catalog catalog_;
  Problems problems_;
};

TEST_F(MeasureRun, SubmitsFollowsScoresAndRedacts) {
  std::optional<MeasuredRun> run = measure(eight_gpu_recipe());
  ASSERT_TRUE(run) << render_problems(problems_, OutputFormat::kText);
  EXPECT_EQ(run->job_id, 12);
  EXPECT_EQ(run->block.steps_per_run, 20);
  ASSERT_TRUE(run->block.scheduler_gpu_hours);
  EXPECT_NEAR(*run->block.scheduler_gpu_hours, 8 * 600 / 3600.0, 1e-12);
  EXPECT_NE(run->text.find("# job 12: 1 x 8 GPUs, Slurm StartTime "), std::string::npos);
  EXPECT_NE(run->text.find("result:\n"), std::string::npos) << run->text;
  // The job's log times each of its 20 steps: the block lists them (result.step_times_s).
  ASSERT_EQ(run->block.score.step_times_s.size(), 20u);
  EXPECT_NE(run->text.find("  step_times_s: ["), std::string::npos) << run->text;
  EXPECT_NE(run->text.find("stack:\n"), std::string::npos) << run->text;
  EXPECT_EQ(run->text.find("acme-research"), std::string::npos) << run->text;
  EXPECT_EQ(run->text.find("/opt/te"), std::string::npos) << run->text;
  std::ifstream script(out_ / "measure.sbatch");
  std::string text{std::istreambuf_iterator<char>(script), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("--train-iters 20 --log-interval 1"), std::string::npos);
  EXPECT_EQ(observer_.notes.front(), "--train-iters set to 20 (the recipe's run says 12)");
  EXPECT_EQ(observer_.notes[1],
            "submitted job 12 (1 node(s)); log: " + job_log_path(out_.string(), 12));
  EXPECT_EQ(measured_run_json(*run)["job"], 12);
}

TEST_F(MeasureRun, AFailedJobIsAnIoErrorNamingTheJobAndItsLog) {
  slurm_.final_state = "FAILED";
  try {
    measure(eight_gpu_recipe());
    FAIL() << "a failed job gave a result";
  } catch (const IoError& error) {
    std::string log = job_log_path(out_.string(), 12);
    EXPECT_EQ(error.path(), log);
    EXPECT_EQ(std::string(error.what()),
              "job 12 ended FAILED, exit code 1:0: no result (log: " + log + ")");
  }
}

TEST_F(MeasureRun, BadInputIsProblemsAndSubmitsNothing) {
  Recipe partial_node = eight_gpu_recipe();
  partial_node.gpu.count = 12;
  EXPECT_FALSE(measure(partial_node));
  ASSERT_EQ(problems_.size(), 1u);
  EXPECT_EQ(problems_[0].file, "recipes/x/h200/eight.yaml");
  EXPECT_EQ(problems_[0].rule, "measure.nodes");
  EXPECT_TRUE(slurm_.calls.empty());
}

// The pre-flight (preflight.h) runs before anything is written or submitted.
TEST_F(MeasureRun, AnUnfilledPlaceholderIsRefusedBeforeAnythingIsWritten) {
  Recipe slime = eight_gpu_recipe();
  slime.run = "python3 -m <slime entry module> --num-rollout 12 --hf-checkpoint $HF_CKPT\n";
  EXPECT_FALSE(measure(slime));
  EXPECT_EQ(testing::rules_of(problems_),
            (std::vector<std::string>{"measure.placeholder", "measure.variable"}));
  EXPECT_TRUE(slurm_.calls.empty());
  EXPECT_FALSE(fs::exists(out_));

  problems_.clear();
  request_.set = {{"slime entry module", "train_async"}};
  request_.env = {{"HF_CKPT", "/ckpt"}};
  std::optional<MeasuredRun> run = measure(slime);
  ASSERT_TRUE(run) << testing::describe(problems_);
  std::ifstream script(out_ / "measure.sbatch");
  std::string text{std::istreambuf_iterator<char>(script), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("python3 -m train_async --num-rollout 20 --hf-checkpoint $HF_CKPT\n"),
            std::string::npos)
      << text;
}

TEST_F(MeasureRun, WithoutSlurmOnPathItIsAnIoError) {
  slurm_.on_path = false;
  EXPECT_THROW(measure(eight_gpu_recipe()), IoError);
  EXPECT_TRUE(slurm_.calls.empty());
}

TEST_F(MeasureRun, AStopBeforeSubmittingSubmitsNothing) {
  observer_.stop = 1;
  EXPECT_FALSE(measure(eight_gpu_recipe()));
  EXPECT_TRUE(problems_.empty());
  EXPECT_TRUE(slurm_.calls.empty());
}

TEST_F(MeasureRun, AStopWhileFollowingCancelsTheJob) {
  slurm_.final_state = "RUNNING";
  observer_.stop_on_progress = true;
  EXPECT_FALSE(measure(eight_gpu_recipe()));
  EXPECT_TRUE(problems_.empty());
  EXPECT_EQ(slurm_.calls.back(), "cancel 12");
  EXPECT_EQ(observer_.notes.back(), "cancelled job 12");
}

TEST(MeasureRedaction, TakesOutTheClusterAccountPartitionNodesAndEnvValues) {
  MeasureRequest request;
  request.partition = "debugq";
  request.env = {{"HF_HOME", "secret-home"}};
  JobRecord job;
  job.account = "acme-research";
  job.node_list = "gpu-a[01-04],gpu-b7";
  RedactionTerms terms = measure_redaction_terms(request, job, "acme-cluster");
  EXPECT_EQ(
      redact("acme-cluster debugq acme-research gpu-a[01-04],gpu-b7 gpu-a secret-home", terms),
      "<cluster> <partition> <account> <nodes> <node> <HF_HOME>");
}

}  // namespace
}  // namespace openrecipes
