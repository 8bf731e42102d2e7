#include "tune/tune_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "base/error.h"
#include "measure/sbatch_script.h"
#include "plan/layout_plan.h"
#include "plan/layout_request.h"
#include "test_support.h"
#include "tune/tune_log.h"
#include "tune/tune_summary.h"

// The loop on a fake Slurm that "runs" each job at once: it reads the layout from the script the
// loop wrote and writes the log Megatron-LM would, at a speed the test decides (the real cluster
// and stand-in trainer are tests/slurm/run_tune_test.sh's).

namespace openrecipes {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const char* kTuneReference = "tests/slurm/fixtures/tune-reference.yaml";

// The value of `--flag N` in `script`, or 1.
int flag_value(const std::string& script, const std::string& flag) {
  std::smatch match;
  if (std::regex_search(script, match, std::regex(flag + " ([0-9]+)"))) return std::stoi(match[1]);
  return 1;
}

// What a job does: its speed in tokens/s per GPU, or "oom", "crash", "running" (never ends).
using Behaviour = std::function<std::string(const std::string& script, int submission)>;

class FakeSlurm : public SlurmApi {
 public:
  explicit FakeSlurm(Behaviour behaviour) : behaviour_(std::move(behaviour)) {}
  mutable std::vector<std::int64_t> submitted, cancelled;
  mutable std::map<std::int64_t, std::string> state;
  std::int64_t next_id = 100;
  bool throw_on_poll = false;  // as the process dying while it follows its jobs

  bool available() const override { return true; }
  std::int64_t submit(const std::string& script_path, std::string*) const override {
    std::ifstream in(script_path);
    std::string script{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::int64_t id = next_id + static_cast<std::int64_t>(submitted.size());
    submitted.push_back(id);
    std::string dir = fs::path(script_path).parent_path().string();
    std::string what = behaviour_(script, static_cast<int>(submitted.size()));
    write_job(dir, id, what);
    return id;
  }
  void write_job(const std::string& dir, std::int64_t id, const std::string& what) const {
    std::ofstream log(job_log_path(dir, id));
    std::ofstream(job_versions_path(dir, id))
        << "python: 3.12.3\npytorch: 2.11.0\ncuda: 12.9\nnccl: 2.28.9\ntransformer_engine: "
           "2.10.0\nmegatron_core: 0.16.0rc0\nmegatron_lm_commit: 1dcf0daf\n";
    state[id] = what == "running"                  ? "RUNNING"
                : what == "oom" || what == "crash" ? "FAILED"
                                                   : "COMPLETED";
    double tokens = what == "oom" || what == "crash" || what == "running" ? 10000 : std::stod(what);
    double ms = 1000.0 * 128 * 8192 / (8 * tokens);
    int steps = what == "oom" ? 1 : what == "crash" ? 3 : 20;
    for (int i = 1; i <= steps; ++i) {
      log << " [2026-12-03 10:00:" << 10 + i << "] iteration " << i
          << "/ 20 | consumed samples: " << i * 128 << " | elapsed time per iteration (ms): " << ms
          << " | learning rate: 1.000000E-05 | global batch size: 128 | lm loss: " << 2.0 - 0.01 * i
          << " | loss scale: 1.0 |\n";
    }
    if (what == "oom")
      log << "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";
    if (what == "crash") log << "RuntimeError: CUDA error: an illegal memory access\n";
  }
  std::optional<JobRecord> job(std::int64_t id) const override {
    if (throw_on_poll) throw IoError("scontrol", "the process died here");
    if (!state.count(id)) return std::nullopt;
    JobRecord record;
    record.job_id = id;
    record.state = state.at(id);
    record.exit_code = record.state == "COMPLETED" ? "0:0" : "1:0";
    record.start_time_s = 1'800'000'000;
    record.end_time_s = 1'800'000'090;  // 90 s on 8 GPUs: 0.2 GPU-hours
    record.source = "scontrol";
    return record;
  }
  std::optional<JobRecord> finished_job(std::int64_t id) const override { return job(id); }
  std::string cancel(std::int64_t id) const override {
    cancelled.push_back(id);
    state[id] = "CANCELLED";
    return "";
  }
  std::string cluster_name() const override { return "acme"; }

 private:
  Behaviour behaviour_;
};

class Observer : public MeasureObserver {
 public:
  std::vector<std::string> notes;
  volatile std::sig_atomic_t stop = 0;
  bool stop_after_submission = false;  // as Ctrl-C once a job is submitted
  void note(const std::string& sentence) override {
    notes.push_back(sentence);
    if (stop_after_submission && sentence.rfind("submitted job", 0) == 0) stop = 1;
  }
  void progress(const JobProgress&) override {}
  const volatile std::sig_atomic_t* stop_flag() const override { return &stop; }
};

class TuneSession : public ::testing::Test {
 protected:
  void SetUp() override {
    measured_ = testing::bundled_recipe_measurements();
    PlanArguments arguments;
    arguments.model = "gpt-oss-20b";
    arguments.gpu = "H200";
    arguments.gpus = 8;
    Problems problems;
    std::optional<PlanRequest> request =
        resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems);
    ASSERT_TRUE(request) << testing::describe(problems);
    inputs_.catalog = &testing::bundled_catalog().catalog;
    inputs_.measured = &measured_;
    inputs_.rules = &testing::bundled_argument_rules();
    inputs_.request = *request;
    inputs_.model_text = "gpt-oss-20b";
    // Without the leave-one-model-out refits: bands come from the fit's own rows, and the test
    // stays fast.
    inputs_.calibrate = [](const std::vector<MeasuredLayout>& rows, bool) {
      return calibrate_speed_model(rows, {}, false);
    };
    options_.reference = testing::source_dir() + "/" + kTuneReference;
    options_.author = "tester";
    options_.measure.poll_interval_s = 0.01;
    options_.measure.gpu_request = false;
    options_.measure.env = {{"NODE_RANK", "0"},         {"MASTER_ADDR", "127.0.0.1"},
                            {"MASTER_PORT", "29500"},   {"SFT_JSONL", "hf://stand-in/rows"},
                            {"SFT_PROMPT_FORMAT", "x"}, {"TOKENIZER", "x"},
                            {"CHECKPOINT", "x"}};
  }
  // Makes the session's reference a copy of kTuneReference, under options_.root as `name`, whose
  // command carries `argument` too (after pretrain_gpt.py).
  void use_reference_with(const std::string& argument, const std::string& name) {
    std::string text = testing::read_source_file(kTuneReference);
    const std::string anchor = "    pretrain_gpt.py \\\n";
    ASSERT_NE(text.find(anchor), std::string::npos);
    text.replace(text.find(anchor), anchor.size(), anchor + "    " + argument + " \\\n");
    options_.reference = (options_.root / name).string();
    std::ofstream(options_.reference) << text;
  }
  // Runs the session, every job scoring 12,000 tokens/s per GPU; returns its proposal events.
  std::vector<Json> proposals_of_a_session() {
    FakeSlurm slurm([](const std::string&, int) -> std::string { return "12000"; });
    std::optional<TuneOutcome> outcome =
        run_tune_session(inputs_, options_, slurm, observer_, problems_);
    EXPECT_TRUE(outcome) << testing::describe(problems_);
    return events("proposal");
  }
  std::vector<Json> events() const {
    std::vector<Json> out;
    std::ifstream in(fs::path(options_.state_dir) / "tune.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
    return out;
  }
  std::vector<Json> events(const std::string& kind) const {
    std::vector<Json> out;
    for (const Json& e : events())
      if (e["event"] == kind) out.push_back(e);
    return out;
  }
  std::vector<MeasuredLayout> measured_;
  TuneInputs inputs_;
  TuneOptions options_;
  Observer observer_;
  Problems problems_;
};

TEST_F(TuneSession, MeasuresLearnsFromFailuresStopsAtMaxRunsAndWritesAVerifiedRecipe) {
  options_.root = testing::catalog_copy("tune_session_full");
  options_.state_dir = (options_.root / "state").string();
  options_.max_runs = 4;
  // The first job runs out of memory, the second crashes, the third runs at 15,000 tokens/s per
  // GPU and any other at 12,000 (the reference arm is the fifth).
  std::vector<int> expert_parallel;
  FakeSlurm slurm([&](const std::string& script, int submission) -> std::string {
    expert_parallel.push_back(flag_value(script, "--expert-model-parallel-size"));
    if (submission == 1) return "oom";
    if (submission == 2) return "crash";
    return submission == 3 ? "15000" : "12000";
  });
  std::optional<TuneOutcome> outcome =
      run_tune_session(inputs_, options_, slurm, observer_, problems_);
  ASSERT_TRUE(outcome) << testing::describe(problems_);
  ASSERT_TRUE(problems_.empty()) << testing::describe(problems_);
  EXPECT_EQ(outcome->ending, TuneEnding::kVerified) << outcome->summary.dump(2);
  // Four runs and the reference arm.
  EXPECT_EQ(slurm.submitted.size(), 5u);
  std::vector<Json> failed = events("failed");
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0]["failure"], "oom");
  EXPECT_EQ(failed[1]["failure"], "crash");
  EXPECT_EQ(
      failed[1]["detail"],
      "Slurm: FAILED, exit code 1:0; log: RuntimeError: CUDA error: an illegal memory access");
  // 90 s on 8 GPUs each.
  EXPECT_NEAR(failed[0]["gpu_hours"].get<double>(), 8 * 90 / 3600.0, 1e-9);
  std::vector<Json> measured = events("measured");
  ASSERT_EQ(measured.size(), 2u);
  std::set<std::string> layouts;
  for (const Json& e : events("proposal"))
    EXPECT_TRUE(
        layouts.insert(e["layout"].get<std::string>() + e["recompute"].get<std::string>()).second)
        << "proposed twice: " << e.dump();
  for (const Json& e : measured) {
    double predicted = e["predicted_tokens_per_s_per_gpu"].get<double>();
    double tokens = e["tokens_per_s_per_gpu"].get<double>();
    EXPECT_NEAR(e["error"].get<double>(), (predicted - tokens) / tokens, 1e-9);
  }
  // A calibration after every result, the last from both measured runs.
  std::vector<Json> calibrations = events("calibration");
  ASSERT_GE(calibrations.size(), 5u);
  EXPECT_EQ(calibrations.back()["runs"], 2);
  EXPECT_TRUE(calibrations.back()["session_band"].is_number());
  std::vector<Json> stops = events("stop");
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0]["reason"], "max_runs");
  ASSERT_EQ(events("reference_measured").size(), 1u);
  std::vector<Json> recipes = events("recipe");
  ASSERT_EQ(recipes.size(), 1u);
  EXPECT_EQ(recipes[0]["status"], "verified");
  fs::path written = options_.root / recipes[0]["path"].get<std::string>();
  std::string text = testing::read_file(written);
  EXPECT_NE(text.find("\nstatus: verified\n"), std::string::npos);
  EXPECT_NE(text.find("github: tester"), std::string::npos);
  EXPECT_EQ(text.find("not pinned"), std::string::npos) << text;
  // The best run is the one the recipe holds (the log prints step times to 0.1 ms).
  std::smatch score;
  ASSERT_TRUE(std::regex_search(text, score, std::regex("tokens_per_s_per_gpu: ([0-9.]+)")));
  EXPECT_NEAR(std::stod(score[1]), 15000, 1);
  EXPECT_EQ(outcome->summary["best"]["run"], 3);
  // The drafts carried each proposal's layout into the command the job ran.
  std::vector<Json> proposals = events("proposal");
  ASSERT_EQ(proposals.size(), 4u);
  for (std::size_t i = 0; i < proposals.size(); ++i) {
    std::string layout = proposals[i]["layout"].get<std::string>();
    EXPECT_NE(layout.find(" EP" + std::to_string(expert_parallel[i]) + " "), std::string::npos)
        << layout;
  }
  // Every line of the summary is about this session.
  EXPECT_NE(tune_summary_text(outcome->summary)
                .find("wrote " + recipes[0]["path"].get<std::string>() + ": verified"),
            std::string::npos);
}

TEST_F(TuneSession, StopsAtTheBudgetFromSlurmsTimes) {
  options_.root = testing::catalog_copy("tune_session_budget");
  options_.state_dir = (options_.root / "state").string();
  options_.budget_gpu_hours = 0.3;  // a run costs 0.2 GPU-hours
  FakeSlurm slurm([](const std::string&, int) -> std::string { return "12000"; });
  std::optional<TuneOutcome> outcome =
      run_tune_session(inputs_, options_, slurm, observer_, problems_);
  ASSERT_TRUE(outcome) << testing::describe(problems_);
  // One run spends 0.2; another would pass 0.3, so the search stops after one.
  EXPECT_EQ(events("submitted").size(), 1u);
  std::vector<Json> stops = events("stop");
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0]["reason"], "budget");
  EXPECT_NE(stops[0]["detail"].get<std::string>().find("another run would pass the budget"),
            std::string::npos);
}

// The arms run the reference's command, so the session predicts with its run settings: a
// reference that reduces gradients in BF16 gives proposals whose memory is its draft's (the draft
// took the reference's settings; the session assumed FP32 gradients).
TEST_F(TuneSession, PredictsWithTheReferencesRunSettings) {
  options_.root = testing::catalog_copy("tune_session_settings");
  options_.state_dir = (options_.root / "state").string();
  options_.budget_gpu_hours = 0.3;  // one run
  use_reference_with("--grad-reduce-in-bf16", "bf16-reference.yaml");
  std::vector<Json> proposals = proposals_of_a_session();
  ASSERT_FALSE(proposals.empty());
  const std::string draft =
      testing::read_file(fs::path(options_.state_dir) / "runs" / "001" / "draft.yaml");
  ASSERT_NE(draft.find("--grad-reduce-in-bf16"), std::string::npos) << draft;
  const std::string key = "\nprediction:\n";
  std::size_t at = draft.find("  memory_bytes: ", draft.find(key));
  ASSERT_NE(at, std::string::npos) << draft;
  EXPECT_NEAR(proposals[0]["memory_gb"].get<double>(), std::stod(draft.substr(at + 16)) / 1e9,
              1e-9);
}

TEST_F(TuneSession, TriesOnlyTheReferencesDispatcher) {
  // Every arm runs on the reference's stack, which need not hold DeepEP or HybridEP. This
  // reference names HybridEP as the flex backend but runs alltoall: the planner alone ranks flex
  // (HybridEP) layouts first (the permutation moves into its dispatch), the session proposes none.
  options_.root = testing::catalog_copy("tune_session_dispatcher");
  options_.state_dir = (options_.root / "state").string();
  options_.max_runs = 2;
  use_reference_with("--moe-flex-dispatcher-backend hybridep", "hybridep-reference.yaml");
  PlanRequest alone = inputs_.request;
  alone.workload.hybridep = true;
  LayoutPlan plan = plan_layouts(alone, measured_, inputs_.calibrate(measured_, false), 200);
  ASSERT_FALSE(plan.search.ranked.empty());
  ASSERT_EQ(plan.search.ranked.front().layout.dispatcher, "flex");
  std::vector<Json> proposals = proposals_of_a_session();
  ASSERT_FALSE(proposals.empty());
  for (const Json& e : proposals) EXPECT_NE(e["dispatcher"], "flex") << e.dump();
}

TEST_F(TuneSession, CtrlCCancelsTheJobsItSubmittedAndResumeGoesOn) {
  options_.root = testing::catalog_copy("tune_session_interrupt");
  options_.state_dir = (options_.root / "state").string();
  options_.max_runs = 1;
  observer_.stop_after_submission = true;
  FakeSlurm running([](const std::string&, int) -> std::string { return "running"; });
  std::optional<TuneOutcome> outcome =
      run_tune_session(inputs_, options_, running, observer_, problems_);
  ASSERT_TRUE(outcome) << testing::describe(problems_);
  EXPECT_EQ(outcome->ending, TuneEnding::kInterrupted);
  EXPECT_EQ(running.cancelled, running.submitted);
  ASSERT_EQ(events("cancelled").size(), 1u);
  EXPECT_EQ(events("stop").back()["reason"], "interrupted");

  // The same state folder again: the search goes on, and a cancelled run is neither a failure
  // nor a run of --max-runs, so its layout runs again.
  std::string cancelled_layout = events("proposal")[0]["layout"].get<std::string>();
  Observer again;
  FakeSlurm fast([](const std::string&, int) -> std::string { return "12000"; });
  fast.next_id = 300;
  std::optional<TuneOutcome> resumed = run_tune_session(inputs_, options_, fast, again, problems_);
  ASSERT_TRUE(resumed) << testing::describe(problems_);
  EXPECT_EQ(events("resume").size(), 1u);
  std::vector<Json> measured = events("measured");
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_EQ(measured[0]["layout"], cancelled_layout);
  EXPECT_EQ(resumed->ending, TuneEnding::kVerified) << resumed->summary.dump(2);
}

TEST_F(TuneSession, AfterTheProcessDiedItsJobInFlightIsReattachedNotResubmitted) {
  options_.root = testing::catalog_copy("tune_session_resume");
  options_.state_dir = (options_.root / "state").string();
  options_.max_runs = 1;
  FakeSlurm dying([](const std::string&, int) -> std::string { return "running"; });
  dying.throw_on_poll = true;
  EXPECT_THROW(run_tune_session(inputs_, options_, dying, observer_, problems_), IoError);
  ASSERT_EQ(dying.submitted.size(), 1u);
  std::int64_t job = dying.submitted[0];
  ASSERT_EQ(events("submitted").size(), 1u);

  // The job finished while nothing followed it; the new process finds it done.
  FakeSlurm later([](const std::string&, int) -> std::string { return "12000"; });
  later.next_id = 500;
  later.state[job] = "COMPLETED";
  later.write_job((fs::path(options_.state_dir) / "runs" / "001").string(), job, "14000");
  Observer again;
  std::optional<TuneOutcome> outcome = run_tune_session(inputs_, options_, later, again, problems_);
  ASSERT_TRUE(outcome) << testing::describe(problems_);
  std::vector<Json> resume = events("resume");
  ASSERT_EQ(resume.size(), 1u);
  EXPECT_EQ(resume[0]["in_flight"], Json::array({job}));
  // Only the reference arm was submitted; run 1 was measured from the job it re-attached.
  EXPECT_EQ(later.submitted.size(), 1u);
  std::vector<Json> measured = events("measured");
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_EQ(measured[0]["job"], job);
  EXPECT_NEAR(measured[0]["tokens_per_s_per_gpu"].get<double>(), 14000, 2);
  EXPECT_EQ(outcome->ending, TuneEnding::kVerified) << outcome->summary.dump(2);
}

// A proposer of someone else's: it runs the round's last proposal (the built-in step runs the
// first), then stops. Written in Python, as an agent's glue would be.
TEST_F(TuneSession, AProposerProgramReplacesTheProposalStep) {
  options_.root = testing::catalog_copy("tune_session_proposer");
  options_.state_dir = (options_.root / "state").string();
  options_.proposer = (options_.root / "proposer.py").string();
  std::ofstream(options_.proposer)
      << "#!/usr/bin/env python3\n"
         "import json, sys\n"
         "state = json.load(open(sys.argv[1]))\n"
         "if state['runs']:\n"
         "    print(json.dumps({'stop': True, 'stop_reason': 'one run is enough'}))\n"
         "else:\n"
         "    print(json.dumps({'proposals': [state['round']['proposals'][-1]]}))\n";
  fs::permissions(options_.proposer, fs::perms::owner_all);
  FakeSlurm slurm([](const std::string&, int) -> std::string { return "12000"; });
  std::optional<TuneOutcome> outcome =
      run_tune_session(inputs_, options_, slurm, observer_, problems_);
  ASSERT_TRUE(outcome) << testing::describe(problems_);
  Json input =
      Json::parse(testing::read_file(fs::path(options_.state_dir) / "proposer-input.json"));
  std::vector<Json> proposals = events("proposal");
  ASSERT_EQ(proposals.size(), 1u);
  // The input the proposer saw last holds the run it chose.
  ASSERT_EQ(input["runs"].size(), 1u);
  EXPECT_EQ(input["runs"][0]["layout"], proposals[0]["layout"]);
  EXPECT_NE(proposals[0]["layout"], events("calibration")[0]["next"][0]["layout"]);
  EXPECT_EQ(events("stop").back()["detail"], "the proposer stopped: one run is enough");
  EXPECT_EQ(outcome->ending, TuneEnding::kVerified) << outcome->summary.dump(2);

  // An answer that is not the interface is a problem naming the program; nothing runs.
  options_.state_dir = (options_.root / "state2").string();
  std::ofstream(options_.proposer)
      << "#!/bin/sh\necho '{\"proposals\": [{\"layout\": \"TP3\"}]}'\n";
  FakeSlurm idle([](const std::string&, int) -> std::string { return "12000"; });
  Problems problems;
  EXPECT_FALSE(run_tune_session(inputs_, options_, idle, observer_, problems));
  EXPECT_TRUE(testing::has_rule(problems, "tune.proposer")) << testing::describe(problems);
  EXPECT_TRUE(idle.submitted.empty());

  // A stop that is not a boolean, and one layout twice in one answer, are refused too.
  options_.parallel = 2;
  for (const char* answer :
       {R"({"stop": "yes"})",
        R"({"proposals": [{"layout": "TP1 PP1 VPP1 CP1 EP4 ETP1 MBS1", "recompute": "none"},
                          {"layout": "TP1 PP1 VPP1 CP1 EP4 ETP1 MBS1", "recompute": "none"}]})"}) {
    options_.state_dir = (options_.root / "state3").string();
    fs::remove_all(options_.state_dir);
    std::ofstream(options_.proposer) << "#!/bin/sh\ncat <<'EOF'\n" << answer << "\nEOF\n";
    problems.clear();
    EXPECT_FALSE(run_tune_session(inputs_, options_, idle, observer_, problems)) << answer;
    EXPECT_TRUE(testing::has_rule(problems, "tune.proposer")) << testing::describe(problems);
    EXPECT_TRUE(idle.submitted.empty());
  }
}

TEST_F(TuneSession, AStateFolderOfAnotherSessionIsRefused) {
  options_.root = testing::catalog_copy("tune_session_other");
  options_.state_dir = (options_.root / "state").string();
  fs::create_directories(options_.state_dir);
  std::ofstream(fs::path(options_.state_dir) / "tune.jsonl")
      << R"({"event":"start","model":"gpt-oss-120b","gpu":"H200","gpus":8,"reference":"x"})"
      << "\n";
  FakeSlurm slurm([](const std::string&, int) -> std::string { return "12000"; });
  EXPECT_FALSE(run_tune_session(inputs_, options_, slurm, observer_, problems_));
  EXPECT_TRUE(testing::has_rule(problems_, "tune.state")) << testing::describe(problems_);
  EXPECT_TRUE(slurm.submitted.empty());
}

TEST_F(TuneSession, AReferenceOfAnotherModelIsRefusedBeforeAnythingRuns) {
  options_.root = testing::catalog_copy("tune_session_reference");
  options_.state_dir = (options_.root / "state").string();
  options_.reference =
      (options_.root / "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml").string();
  FakeSlurm slurm([](const std::string&, int) -> std::string { return "12000"; });
  EXPECT_FALSE(run_tune_session(inputs_, options_, slurm, observer_, problems_));
  EXPECT_TRUE(testing::has_rule(problems_, "tune.reference")) << testing::describe(problems_);
  EXPECT_TRUE(slurm.submitted.empty());
  EXPECT_FALSE(fs::exists(options_.state_dir));

  // A planned draft has no measured arm to verify against.
  options_.reference =
      testing::source_dir() + "/tests/fixtures/drafts/gpt-oss-20b-h200-tp1-pp2-ep4.yaml";
  problems_.clear();
  EXPECT_FALSE(run_tune_session(inputs_, options_, slurm, observer_, problems_));
  EXPECT_TRUE(testing::has_rule(problems_, "tune.reference")) << testing::describe(problems_);
  EXPECT_TRUE(slurm.submitted.empty());
}

}  // namespace
}  // namespace openrecipes
