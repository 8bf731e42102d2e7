#include "tune/tune_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <list>
#include <memory>
#include <sstream>
#include <thread>

#include "base/atomic_write.h"
#include "base/error.h"
#include "base/yaml_document.h"
#include "base/yaml_scalar.h"
#include "base/yaml_splice.h"
#include "catalog/protocol.h"
#include "catalog/recipe_file.h"
#include "export/export_draft.h"
#include "export/planned_recipe.h"
#include "layout/layout_text.h"
#include "measure/job_failure.h"
#include "measure/measure_result.h"
#include "measure/stack_versions.h"
#include "measure/step_count.h"
#include "plan/catalog_measurements.h"
#include "plan/layout_plan.h"
#include "plan/layout_search.h"
#include "plan/prediction_band.h"
#include "tune/external_proposer.h"
#include "tune/layout_proposals.h"
#include "tune/recipe_finalizer.h"
#include "tune/session_learning.h"
#include "tune/tune_log.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// Layouts the proposal step ranks from, as `tune propose` (the planner's best this many).
constexpr int kRankedForProposals = 200;
// Slurm not knowing a job this long means it lost it (job_follow.h's default).
constexpr double kLostAfterS = 300;
// Bytes of a failed job's log read to classify it: the fatal error is printed last.
constexpr std::size_t kLogTailBytes = 16 * 1024;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool stop_requested(const MeasureObserver& observer) {
  const volatile std::sig_atomic_t* stop = observer.stop_flag();
  return stop && *stop != 0;
}

// Sleeps `seconds` in short slices, returning early once the stop flag is set.
void pause(double seconds, const MeasureObserver& observer) {
  double until = now_s() + seconds;
  while (!stop_requested(observer) && now_s() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

std::string log_tail(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  std::streamoff size = in.tellg();
  std::streamoff from =
      std::max<std::streamoff>(0, size - static_cast<std::streamoff>(kLogTailBytes));
  in.seekg(from);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The export target for the reference's framework, so that drafts and reference share one form.
ExportTarget target_for(RunFramework framework) {
  switch (framework) {
    case RunFramework::kSlime:
      return ExportTarget::kSlime;
    case RunFramework::kBridge:
      return ExportTarget::kMegatronBridge;
    case RunFramework::kMegatronLm:
    case RunFramework::kUnknown:
      break;
  }
  return ExportTarget::kMegatronLm;
}

// The layout fields of a proposal event, as a session run reads them.
Json layout_fields(const Json& proposal) {
  Json out = Json::object();
  for (const char* key : {"layout", "recompute", "placement", "dispatcher", "label"})
    if (proposal.contains(key)) out[key] = proposal[key];
  return out;
}

// The layout a logged proposal names.
std::optional<Layout> logged_layout(const Json& proposal, std::int64_t row_tokens) {
  Problems ignored;
  return proposal_layout_from_json(nlohmann::json::parse(layout_fields(proposal).dump()),
                                   row_tokens, "", 0, ignored);
}

// One job of the session being followed.
struct ActiveJob {
  int run = 0;  // 0: the reference arm
  std::optional<RecipeFile> recipe;
  MeasureRequest request;
  SubmittedMeasurement submitted;
  double unknown_since = 0;
};

// What the planner says after the latest recalibration. LayoutPlan points into rows and
// calibration, so the whole is kept behind one pointer.
struct Learned {
  std::vector<MeasuredLayout> rows;
  SpeedCalibration calibration;
  LayoutPlan plan;
  SessionCorrection correction;
};

class Session {
 public:
  Session(const TuneInputs& inputs, const TuneOptions& options, const SlurmApi& slurm,
          MeasureObserver& observer, TuneLog& log, RecipeFile& reference, ExportTarget target)
      : inputs_(inputs),
        options_(options),
        slurm_(slurm),
        observer_(observer),
        log_(log),
        reference_(reference),
        target_(target) {}

  /// `resumed`: the log held an earlier call of this session.
  std::optional<TuneOutcome> run(bool resumed, Problems& problems);

 private:
  std::int64_t row_tokens() const { return inputs_.request.workload.row_tokens; }
  // The reference as the drafts name it: its catalog path when it is in the catalog, else its
  // file name (an absolute path would name this machine's folders in a recipe).
  std::string reference_name() const {
    fs::path relative = fs::absolute(options_.reference)
                            .lexically_normal()
                            .lexically_relative(fs::absolute(options_.root).lexically_normal());
    if (!relative.empty() && *relative.begin() != "..") return relative.string();
    return fs::path(options_.reference).filename().string();
  }
  int gpus() const { return inputs_.request.cluster.gpus; }
  std::vector<SessionRun> session_runs(bool with_pending) const;
  void learn();
  bool reattach(Problems& problems);
  bool submit(const LayoutProposal& proposal, Problems& problems);
  void finish(ActiveJob& job, const JobRecord& seen);
  bool poll(std::list<ActiveJob>& jobs,
            const std::function<void(ActiveJob&, const JobRecord&)>& done);
  void cancel_all(std::list<ActiveJob>& jobs);
  double spent_gpu_hours() const;
  int submitted_runs() const;
  void decide_next(Problems& problems, bool& failed);
  ProposalRound external_round(int room, Problems& problems, bool& failed);
  std::optional<std::string> reference_log(Problems& problems, bool& interrupted);
  TuneOutcome verify(Problems& problems);
  TuneOutcome outcome(TuneEnding ending) const;

  const TuneInputs& inputs_;
  const TuneOptions& options_;
  const SlurmApi& slurm_;
  MeasureObserver& observer_;
  TuneLog& log_;
  RecipeFile& reference_;
  ExportTarget target_;
  std::unique_ptr<Learned> learned_;
  std::optional<SpeedCalibration> base_;  ///< fitted without this session's runs
  std::list<ActiveJob> active_;
};

std::vector<SessionRun> Session::session_runs(bool with_pending) const {
  std::vector<SessionRun> out;
  for (const LoggedRun& run : log_.state().runs) {
    if (run.outcome == "measured" || run.outcome == "failed") {
      Problems ignored;
      std::optional<SessionRun> parsed = session_run_from_json(
          nlohmann::json::parse(run.result.dump()), row_tokens(), log_.path(), 0, ignored);
      if (!parsed) continue;
      // A node failure is the cluster's: the layout may run once more before it counts.
      if (parsed->failure == "node_failure") {
        int failures = 0;
        for (const LoggedRun& other : log_.state().runs)
          if (other.outcome == "failed" && other.result.value("failure", "") == "node_failure" &&
              other.result.value("layout", "") == run.result.value("layout", "") &&
              other.result.value("recompute", "") == run.result.value("recompute", ""))
            ++failures;
        if (failures < 2) continue;
      }
      out.push_back(*parsed);
    } else if (with_pending && run.job != 0 && run.outcome.empty()) {
      if (std::optional<Layout> layout = logged_layout(run.proposal, row_tokens()))
        out.push_back({*layout, std::nullopt, "pending"});
    }
  }
  return out;
}

void Session::learn() {
  const PlanRequest& request = inputs_.request;
  std::vector<std::pair<Layout, double>> measured;
  for (const SessionRun& run : session_runs(false))
    if (run.tokens_per_s_per_gpu) measured.emplace_back(run.layout, *run.tokens_per_s_per_gpu);
  // The session's runs join the fit divided by the cluster's factor, a nuisance parameter: the
  // geometric mean of measured over what the fit without them (base_) predicts. So the shared
  // physics learns how this pair's layouts differ from each other, not this cluster's software
  // and clocks, which would pull every other model's predictions; the factor comes back as the
  // correction's scale.
  if (!base_) base_ = inputs_.calibrate(*inputs_.measured, false);
  auto predicted = [&](const Layout& layout, const SpeedParameters& parameters) {
    return predict_layout(request.model.shape, request.cluster, request.workload, layout,
                          parameters, request.memory)
        .speed.tokens_per_s_per_gpu;
  };
  std::vector<std::pair<double, double>> base_pairs;
  for (const auto& [layout, tokens] : measured)
    base_pairs.emplace_back(predicted(layout, base_->parameters), tokens);
  double factor = session_correction(base_pairs).scale;
  auto learned = std::make_unique<Learned>();
  learned->rows = *inputs_.measured;
  for (const auto& [layout, tokens] : measured) {
    MeasuredLayout row;
    row.name = fmt::format("tune session run ({})", layout_text(layout));
    row.model = request.model.shape;
    row.cluster = request.cluster;
    row.workload = request.workload;
    row.layout = layout;
    row.tokens_per_s_per_gpu = tokens / factor;
    row.source = "this tune session (" + log_.path() + ")";
    learned->rows.push_back(row);
  }
  learned->calibration = inputs_.calibrate(learned->rows, true);
  std::vector<std::pair<double, double>> pairs;
  for (const auto& [layout, tokens] : measured)
    pairs.emplace_back(predicted(layout, learned->calibration.parameters), tokens);
  learned->correction = session_correction(pairs);
  learned->plan = plan_layouts(request, learned->rows, learned->calibration, kRankedForProposals);
  apply_session_correction(learned->plan, learned->correction);
  // The best measured before this session: the session's rows sit in the fit divided by the
  // factor, and propose_layouts adds their real figures itself.
  learned->plan.best_measured = best_measured(*inputs_.measured, learned->plan.model_name,
                                              request.cluster.gpu.type, request.workload);
  const SessionCorrection& c = learned->correction;
  // The re-ranked head of the search, so the log shows why the next run is the next run.
  ProposalRound next = propose_layouts(learned->plan, session_runs(true), 5);
  Json head = Json::array();
  for (const LayoutProposal& p : next.proposals)
    head.push_back({{"layout", layout_text(p.prediction.layout)},
                    {"recompute", recompute_text(p.prediction.layout.recompute)},
                    {"predicted_tokens_per_s_per_gpu", p.prediction.speed.tokens_per_s_per_gpu},
                    {"band_used", p.band_used},
                    {"optimistic_tokens_per_s_per_gpu", p.optimistic_tokens_per_s_per_gpu}});
  log_.append({{"event", "calibration"},
               {"best_measured_tokens_per_s_per_gpu", next.best_measured_tokens_per_s_per_gpu},
               {"next", head},
               {"runs", c.runs},
               {"rows", learned->rows.size()},
               {"leave_one_model_out_mape", learned->calibration.mape},
               {"session_scale", c.scale},
               {"session_band", c.band ? Json(*c.band) : Json(nullptr)},
               {"session_mape", c.mape ? Json(*c.mape) : Json(nullptr)}});
  learned_ = std::move(learned);
}

bool Session::reattach(Problems& problems) {
  std::vector<std::int64_t> jobs;
  for (const LoggedRun* run : log_.state().in_flight()) {
    ActiveJob job;
    job.run = run->run;
    std::string draft = (fs::path(run->dir) / "draft.yaml").string();
    job.recipe = read_recipe_file(options_.root, draft, problems);
    if (!job.recipe) return false;
    job.request = options_.measure;
    job.request.recipe_file = draft;
    job.request.out_dir = run->dir;
    std::optional<SubmittedMeasurement> submitted =
        attach_measurement(job.recipe->recipe, job.request, run->job, problems);
    if (!submitted) return false;
    job.submitted = *submitted;
    jobs.push_back(run->job);
    active_.push_back(std::move(job));
    active_.back().request.document = &active_.back().recipe->document;
    observer_.note(fmt::format("re-attached job {} (run {})", run->job, run->run));
  }
  log_.append({{"event", "resume"}, {"in_flight", jobs}});
  return true;
}

bool Session::submit(const LayoutProposal& proposal, Problems& problems) {
  int number = static_cast<int>(log_.state().runs.size()) + 1;
  std::string dir = (fs::path(log_.dir()) / "runs" / fmt::format("{:03d}", number)).string();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw IoError(dir, fmt::format("cannot make {}: {}", dir, ec.message()));
  PlanRequest request = inputs_.request;
  request.layout = proposal.prediction.layout;
  LayoutDraft draft =
      export_layout_draft(request, *inputs_.catalog, {}, learned_->calibration.parameters,
                          *inputs_.rules, target_, {&reference_.recipe, reference_name()});
  std::string draft_path = (fs::path(dir) / "draft.yaml").string();
  if (!write_text_atomically(draft_path, draft.text, "draft", problems)) return false;

  ActiveJob job;
  job.run = number;
  job.recipe = read_recipe_file(options_.root, draft_path, problems);
  if (!job.recipe) return false;
  job.request = options_.measure;
  job.request.recipe_file = draft_path;
  job.request.out_dir = dir;
  job.request.document = &job.recipe->document;

  ProposalRound single;
  single.proposals.push_back(proposal);
  Json event = proposal_round_to_json(single, learned_->plan, inputs_.model_text)["proposals"][0];
  event["event"] = "proposal";
  event["run"] = number;
  log_.append(event);
  std::optional<SubmittedMeasurement> submitted =
      submit_measurement(job.recipe->recipe, job.request, slurm_, observer_, problems);
  if (!submitted) return false;
  job.submitted = *submitted;
  log_.append({{"event", "submitted"}, {"run", number}, {"job", submitted->job_id}, {"dir", dir}});
  active_.push_back(std::move(job));
  active_.back().request.document = &active_.back().recipe->document;
  return true;
}

void Session::finish(ActiveJob& job, const JobRecord& seen) {
  const LoggedRun& logged = log_.state().runs.at(static_cast<std::size_t>(job.run - 1));
  JobRecord record = finished_job_record(job.submitted, seen, slurm_, observer_);
  double hours =
      record.start_time_s && record.end_time_s && *record.end_time_s >= *record.start_time_s
          ? scheduler_gpu_hours(gpus(), *record.start_time_s, *record.end_time_s)
          : 0;
  Json event = layout_fields(logged.proposal);
  event["run"] = job.run;
  event["job"] = job.submitted.job_id;
  std::string crash_detail;
  if (record.state == "COMPLETED") {
    try {
      MeasuredRun measured = score_measurement(job.recipe->recipe, *inputs_.catalog, job.request,
                                               job.submitted, record, slurm_, observer_);
      double tokens = measured.block.score.tokens_per_s_per_gpu;
      double predicted = logged.proposal.value("predicted_tokens_per_s_per_gpu", 0.0);
      Json stack = Json::object();
      for (const auto& [name, value] : measured.stack) stack[name] = value;
      event["event"] = "measured";
      event["tokens_per_s_per_gpu"] = tokens;
      event["step_time_cv_percent"] = measured.block.score.step_time_cv_percent;
      event["gpu_hours"] = measured.block.scheduler_gpu_hours.value_or(hours);
      event["predicted_tokens_per_s_per_gpu"] = predicted;
      event["error"] = predicted > 0 ? Json((predicted - tokens) / tokens) : Json(nullptr);
      event["log"] = job.submitted.log_path;
      event["stack"] = stack;
      log_.append(event);
      observer_.note(fmt::format("run {} (job {}): {:.0f} tokens/s per GPU, predicted {:.0f}",
                                 job.run, job.submitted.job_id, tokens, predicted));
      return;
    } catch (const IoError& error) {
      crash_detail = error.what();
    }
  }
  JobFailure failure = classify_job_failure(record, log_tail(job.submitted.log_path));
  if (failure.kind == JobFailureKind::kCrash && !crash_detail.empty())
    failure.detail = crash_detail.substr(0, 300);
  event["event"] = "failed";
  event["failure"] = job_failure_word(failure.kind);
  event["state"] = record.state;
  event["exit_code"] = record.exit_code;
  event["detail"] = failure.detail;
  event["gpu_hours"] = hours;
  event["log"] = job.submitted.log_path;
  log_.append(event);
  observer_.note(fmt::format("run {} (job {}) failed: {} ({})", job.run, job.submitted.job_id,
                             job_failure_word(failure.kind), failure.detail));
}

// One look at every job; calls `done` for each whose state is final (or that Slurm lost) and
// drops it. True when any ended.
bool Session::poll(std::list<ActiveJob>& jobs,
                   const std::function<void(ActiveJob&, const JobRecord&)>& done) {
  bool ended = false;
  for (auto it = jobs.begin(); it != jobs.end();) {
    std::optional<JobRecord> seen = slurm_.job(it->submitted.job_id);
    if (!seen) {
      if (it->unknown_since == 0) it->unknown_since = now_s();
      if (now_s() - it->unknown_since < kLostAfterS) {
        ++it;
        continue;
      }
      JobRecord lost;
      lost.job_id = it->submitted.job_id;
      lost.state = "NODE_FAIL";
      seen = lost;
    } else {
      it->unknown_since = 0;
      if (!is_final_job_state(seen->state)) {
        ++it;
        continue;
      }
    }
    done(*it, *seen);
    it = jobs.erase(it);
    ended = true;
  }
  return ended;
}

void Session::cancel_all(std::list<ActiveJob>& jobs) {
  for (ActiveJob& job : jobs) {
    std::string error = slurm_.cancel(job.submitted.job_id);
    if (!error.empty()) {
      observer_.note(fmt::format("could not cancel job {}: {} (cancel it with scancel {})",
                                 job.submitted.job_id, error, job.submitted.job_id));
    } else {
      observer_.note(fmt::format("cancelled job {}", job.submitted.job_id));
    }
    if (job.run > 0) {
      log_.append({{"event", "cancelled"}, {"run", job.run}, {"job", job.submitted.job_id}});
    }
  }
  jobs.clear();
}

double Session::spent_gpu_hours() const {
  double hours = 0;
  for (const LoggedRun& run : log_.state().runs)
    if (run.outcome == "measured" || run.outcome == "failed")
      hours += run.result.value("gpu_hours", 0.0);
  return hours;
}

// Runs that count against --max-runs: submitted and not cancelled by Ctrl-C.
int Session::submitted_runs() const {
  int count = 0;
  for (const LoggedRun& run : log_.state().runs)
    if (run.job != 0 && run.outcome != "cancelled") ++count;
  return count;
}

// The proposal step of options_.proposer (external_proposer.h).
ProposalRound Session::external_round(int room, Problems& problems, bool& failed) {
  ProposalRound offered = propose_layouts(learned_->plan, session_runs(true), kRankedForProposals);
  Json runs = Json::array();
  for (const LoggedRun& run : log_.state().runs)
    if (!run.outcome.empty()) runs.push_back(run.result);
  ProposerCall call;
  call.program = options_.proposer;
  call.input_path = (fs::path(log_.dir()) / "proposer-input.json").string();
  call.input = {{"openrecipes_tune_proposer", 1},
                {"model", inputs_.request.model.name},
                {"gpu", inputs_.request.cluster.gpu.type},
                {"gpus", gpus()},
                {"room", room},
                {"round", proposal_round_to_json(offered, learned_->plan, inputs_.model_text)},
                {"runs", runs}};
  call.room = room;
  call.row_tokens = row_tokens();
  call.stop = observer_.stop_flag();
  std::optional<ProposalRound> round =
      run_external_proposer(call, learned_->plan, session_runs(true), problems);
  if (!round) {
    failed = true;
    return {};
  }
  return *round;
}

// Decides whether the search stops, or submits runs up to `parallel`.
void Session::decide_next(Problems& problems, bool& failed) {
  auto stop = [&](const std::string& reason, const std::string& detail) {
    log_.append({{"event", "stop"}, {"reason", reason}, {"detail", detail}});
    observer_.note("stopping: " + detail);
  };
  double spent = spent_gpu_hours();
  int finished = 0;
  for (const LoggedRun& run : log_.state().runs)
    if (run.outcome == "measured" || run.outcome == "failed") ++finished;
  if (options_.budget_gpu_hours && spent >= *options_.budget_gpu_hours) {
    stop("budget", fmt::format("the budget is spent: {:.4f} of {:.4f} GPU-hours (Slurm's times)",
                               spent, *options_.budget_gpu_hours));
    return;
  }
  if (submitted_runs() >= options_.max_runs) {
    stop("max_runs",
         fmt::format("{} runs submitted, the most --max-runs allows", options_.max_runs));
    return;
  }
  int room = options_.parallel - static_cast<int>(active_.size());
  if (room <= 0) return;
  room = std::min(room, options_.max_runs - submitted_runs());
  ProposalRound round = options_.proposer.empty()
                            ? propose_layouts(learned_->plan, session_runs(true), room)
                            : external_round(room, problems, failed);
  if (failed) return;
  if (round.stop) {
    if (!active_.empty()) return;  // the results still running may change the picture
    stop(learned_->plan.search.ranked.empty() ? "nothing_fits" : "converged", round.stop_reason);
    return;
  }
  for (const LayoutProposal& proposal : round.proposals) {
    if (options_.budget_gpu_hours && finished > 0) {
      double per_run = spent / finished;
      double committed = spent + per_run * static_cast<double>(active_.size() + 1);
      if (committed > *options_.budget_gpu_hours) {
        if (active_.empty()) {
          stop("budget",
               fmt::format("another run would pass the budget: {:.4f} of {:.4f} GPU-hours spent, "
                           "and a run costs about {:.4f}",
                           spent, *options_.budget_gpu_hours, per_run));
        }
        return;
      }
    }
    if (!submit(proposal, problems)) {
      failed = true;
      return;
    }
  }
}

// The reference arm's log, measured once per session (kept in the log for a resume). nullopt
// when it failed (logged) or was interrupted.
std::optional<std::string> Session::reference_log(Problems& problems, bool& interrupted) {
  const TuneLogState& state = log_.state();
  if (state.reference_result) {
    if ((*state.reference_result)["event"] == "reference_measured")
      return (*state.reference_result)["log"].get<std::string>();
    return std::nullopt;
  }
  std::list<ActiveJob> jobs;
  ActiveJob job;
  job.request = options_.measure;
  job.request.recipe_file = options_.reference;
  job.request.document = &reference_.document;
  if (state.reference_job != 0) {
    job.request.out_dir = state.reference_dir;
    std::optional<SubmittedMeasurement> submitted =
        attach_measurement(reference_.recipe, job.request, state.reference_job, problems);
    if (!submitted) return std::nullopt;
    job.submitted = *submitted;
    observer_.note(fmt::format("re-attached the reference arm, job {}", state.reference_job));
  } else {
    job.request.out_dir = (fs::path(log_.dir()) / "reference").string();
    observer_.note("the reference arm: " + options_.reference +
                   " for 20 steps on the same image and rows");
    std::optional<SubmittedMeasurement> submitted =
        submit_measurement(reference_.recipe, job.request, slurm_, observer_, problems);
    if (!submitted) return std::nullopt;
    job.submitted = *submitted;
    log_.append({{"event", "reference_submitted"},
                 {"job", submitted->job_id},
                 {"dir", job.request.out_dir}});
  }
  jobs.push_back(std::move(job));
  std::optional<std::string> out;
  while (!jobs.empty()) {
    if (stop_requested(observer_)) {
      std::int64_t job_id = jobs.front().submitted.job_id;
      cancel_all(jobs);
      log_.append({{"event", "reference_cancelled"}, {"job", job_id}});
      interrupted = true;
      return std::nullopt;
    }
    poll(jobs, [&](ActiveJob& arm, const JobRecord& seen) {
      JobRecord record = finished_job_record(arm.submitted, seen, slurm_, observer_);
      try {
        MeasuredRun measured = score_measurement(reference_.recipe, *inputs_.catalog, arm.request,
                                                 arm.submitted, record, slurm_, observer_);
        log_.append({{"event", "reference_measured"},
                     {"job", arm.submitted.job_id},
                     {"log", arm.submitted.log_path},
                     {"tokens_per_s_per_gpu", measured.block.score.tokens_per_s_per_gpu},
                     {"gpu_hours", measured.block.scheduler_gpu_hours.value_or(0.0)}});
        out = arm.submitted.log_path;
      } catch (const IoError& error) {
        JobFailure failure = classify_job_failure(record, log_tail(arm.submitted.log_path));
        log_.append({{"event", "reference_failed"},
                     {"job", arm.submitted.job_id},
                     {"failure", job_failure_word(failure.kind)},
                     {"detail", std::string(error.what()).substr(0, 300)}});
      }
    });
    if (!jobs.empty()) pause(options_.measure.poll_interval_s, observer_);
  }
  return out;
}

// The candidate draft with its author and the stack its run printed.
std::string candidate_draft(const std::string& draft_text, const std::string& file,
                            const std::string& author, const Json& stack, Problems& problems) {
  std::optional<YamlDocument> document = parse_yaml(draft_text, file, problems);
  if (!document) return "";
  std::vector<LineEdit> edits;
  if (std::optional<LineRange> lines = yaml_entry_lines(*document, "author"))
    edits.push_back({*lines, "author:\n  github: " + yaml_scalar(author) + "\n"});
  NamedValues fields;
  for (const auto& [name, value] : stack.items())
    fields.emplace_back(name, value.get<std::string>());
  if (std::optional<LineRange> lines = yaml_entry_lines(*document, "stack");
      lines && !fields.empty())
    edits.push_back({*lines, stack_block_yaml(fields)});
  std::sort(edits.begin(), edits.end(),
            [](const LineEdit& a, const LineEdit& b) { return a.range.first < b.range.first; });
  return splice_lines(draft_text, edits);
}

TuneOutcome Session::verify(Problems& problems) {
  const LoggedRun* best = log_.state().best_measured();
  if (!best) {
    observer_.note("no run was measured, so there is no recipe to write");
    return outcome(TuneEnding::kNoRecipe);
  }
  bool interrupted = false;
  std::optional<std::string> reference_log_path = reference_log(problems, interrupted);
  if (interrupted) {
    log_.append({{"event", "stop"},
                 {"reason", "interrupted"},
                 {"detail", "Ctrl-C during the reference arm"}});
    return outcome(TuneEnding::kInterrupted);
  }
  if (!reference_log_path) {
    if (problems.empty())
      observer_.note(
          "the reference arm failed, so the winner cannot be verified; no recipe written");
    return outcome(TuneEnding::kNoRecipe);
  }
  std::string draft_file = (fs::path(best->dir) / "draft.yaml").string();
  std::optional<std::string> draft_text =
      read_text_file(draft_file, kMaxCatalogFileBytes, problems);
  if (!draft_text) return outcome(TuneEnding::kNoRecipe);
  std::string text = candidate_draft(*draft_text, draft_file, options_.author,
                                     best->result.value("stack", Json::object()), problems);
  if (!problems.empty()) return outcome(TuneEnding::kNoRecipe);
  std::string recipe_draft = (fs::path(log_.dir()) / "recipe-draft.yaml").string();
  if (!write_text_atomically(recipe_draft, text, "draft", problems))
    return outcome(TuneEnding::kNoRecipe);
  FinalizeRequest request;
  request.root = options_.root;
  request.draft = recipe_draft;
  request.candidate_log = best->result.value("log", std::string());
  request.reference = options_.reference;
  request.reference_log = *reference_log_path;
  request.variant = options_.variant;
  request.scheduler_gpu_hours = best->result.value("gpu_hours", 0.0);
  std::optional<FinalizedRecipe> recipe = finalize_recipe(request, problems);
  if (!recipe || !write_finalized_recipe(*recipe, options_.replace, problems))
    return outcome(TuneEnding::kNoRecipe);
  log_.append({{"event", "recipe"},
               {"path", recipe->catalog_path},
               {"status", recipe->status},
               {"run", best->run},
               {"summary", recipe->check.summary()}});
  return outcome(recipe->status == "verified" ? TuneEnding::kVerified : TuneEnding::kUnverified);
}

TuneOutcome Session::outcome(TuneEnding ending) const {
  const TuneLogState& state = log_.state();
  TuneOutcome out;
  out.ending = ending;
  Json runs = Json::array();
  for (const LoggedRun& run : state.runs) {
    if (run.job == 0) continue;
    const Json& p = run.proposal;
    const Json& r = run.result;
    Json row = {{"run", run.run},
                {"layout", p.value("layout", "")},
                {"recompute", p.value("recompute", "")},
                {"label", p.value("label", "")},
                {"job", run.job},
                {"predicted_tokens_per_s_per_gpu", p.value("predicted_tokens_per_s_per_gpu", 0.0)},
                {"band", p.value("band_used", 0.0)},
                {"outcome", run.outcome.empty() ? "running" : run.outcome},
                {"tokens_per_s_per_gpu",
                 r.contains("tokens_per_s_per_gpu") ? r["tokens_per_s_per_gpu"] : Json(nullptr)},
                {"error", r.contains("error") ? r["error"] : Json(nullptr)},
                {"failure", r.contains("failure") ? r["failure"] : Json(nullptr)},
                {"detail", r.contains("detail") ? r["detail"] : Json(nullptr)},
                {"gpu_hours", r.value("gpu_hours", 0.0)}};
    runs.push_back(row);
  }
  const LoggedRun* best = state.best_measured();
  Json best_json = nullptr;
  if (best)
    best_json = {{"run", best->run},
                 {"layout", best->proposal.value("layout", "")},
                 {"label", best->proposal.value("label", "")},
                 {"tokens_per_s_per_gpu", best->result.value("tokens_per_s_per_gpu", 0.0)}};
  Json catalog_best = nullptr;
  if (learned_ && learned_->plan.best_measured)
    catalog_best = {{"name", learned_->plan.best_measured->name},
                    {"tokens_per_s_per_gpu", learned_->plan.best_measured->tokens_per_s_per_gpu}};
  static const char* kEndings[] = {"verified", "unverified", "no_recipe", "interrupted"};
  out.summary = {{"model", inputs_.request.model.name},
                 {"gpu", inputs_.request.cluster.gpu.type},
                 {"gpus", gpus()},
                 {"state", log_.dir()},
                 {"ending", kEndings[static_cast<int>(ending)]},
                 {"stop", state.stop ? Json{{"reason", (*state.stop)["reason"]},
                                            {"detail", (*state.stop)["detail"]}}
                                     : Json(nullptr)},
                 {"gpu_hours", spent_gpu_hours()},
                 {"runs", runs},
                 {"best", best_json},
                 {"best_measured_before", catalog_best},
                 {"reference", state.reference_result ? *state.reference_result : Json(nullptr)},
                 {"recipe", state.recipe ? Json{{"path", (*state.recipe)["path"]},
                                                {"status", (*state.recipe)["status"]},
                                                {"summary", (*state.recipe)["summary"]}}
                                         : Json(nullptr)}};
  return out;
}

std::optional<TuneOutcome> Session::run(bool resumed, Problems& problems) {
  if (log_.state().recipe)
    return outcome(log_.state().recipe->value("status", "") == "verified"
                       ? TuneEnding::kVerified
                       : TuneEnding::kUnverified);
  if (resumed && !reattach(problems)) return std::nullopt;
  learn();
  while (true) {
    if (stop_requested(observer_)) {
      cancel_all(active_);
      log_.append({{"event", "stop"}, {"reason", "interrupted"}, {"detail", "Ctrl-C"}});
      return outcome(TuneEnding::kInterrupted);
    }
    bool ended = poll(active_, [&](ActiveJob& job, const JobRecord& seen) { finish(job, seen); });
    if (ended) learn();
    if (!log_.state().stop) {
      bool failed = false;
      decide_next(problems, failed);
      if (failed) return std::nullopt;
    }
    if (log_.state().stop && active_.empty()) break;
    if (!active_.empty()) pause(options_.measure.poll_interval_s, observer_);
  }
  return verify(problems);
}

}  // namespace

std::optional<TuneOutcome> run_tune_session(const TuneInputs& inputs, const TuneOptions& options,
                                            const SlurmApi& slurm, MeasureObserver& observer,
                                            Problems& problems) {
  std::optional<RecipeFile> reference = read_recipe_file(options.root, options.reference, problems);
  if (!reference) return std::nullopt;
  if (reference->recipe.model != inputs.request.model.name) {
    problems.push_back({options.reference,
                        {},
                        "model",
                        "tune.reference",
                        "the reference is a recipe of another model",
                        inputs.request.model.name,
                        reference->recipe.model});
  }
  if (reference->recipe.status == "planned") {
    problems.push_back({options.reference, reference->document.position_of("status"), "status",
                        "tune.reference",
                        "the reference is a planned draft: its arm would verify nothing",
                        "a measured recipe (verified or unverified)", "planned"});
  }
  const YamlNode* workload = reference->document.root.find("workload");
  const YamlNode* dataset = workload ? workload->find("dataset") : nullptr;
  if (!dataset || dataset->kind != YamlNode::Kind::kMapping) {
    problems.push_back({options.reference, reference->document.position_of("workload"),
                        "workload.dataset", "tune.reference",
                        "the reference states no rows, so the arms cannot train on the same ones",
                        "a dataset block", "none"});
  }
  Problems step_problems;
  std::optional<ForcedStepCount> steps =
      force_step_count(reference->recipe.run, kProtocolSteps, step_problems);
  for (Problem& problem : step_problems) {
    problem.file = options.reference;
    problems.push_back(problem);
  }
  if (!problems.empty()) return std::nullopt;

  std::optional<TuneLog> log = TuneLog::open(options.state_dir, problems);
  if (!log) return std::nullopt;
  Json start = {{"event", "start"},
                {"model", inputs.request.model.name},
                {"gpu", inputs.request.cluster.gpu.type},
                {"gpus", inputs.request.cluster.gpus},
                {"reference", fs::absolute(options.reference).lexically_normal().string()},
                {"author", options.author},
                {"budget_gpu_hours",
                 options.budget_gpu_hours ? Json(*options.budget_gpu_hours) : Json(nullptr)},
                {"max_runs", options.max_runs},
                {"parallel", options.parallel}};
  bool resumed = log->state().start.has_value();
  if (const std::optional<Json>& earlier = log->state().start) {
    for (const char* key : {"model", "gpu", "gpus", "reference"}) {
      if ((*earlier)[key] != start[key]) {
        problems.push_back({log->path(),
                            {1, 1},
                            key,
                            "tune.state",
                            "the state folder holds another session: give a new --state, or the "
                            "same flags as its first call",
                            start[key].dump(),
                            (*earlier)[key].dump()});
      }
    }
    if (!problems.empty()) return std::nullopt;
  } else {
    log->append(start);
  }
  // Every arm runs the reference's command with another layout: the session's predictions (its
  // proposals, what it learns from each run, the drafts) assume that command's run settings.
  TuneInputs with_reference_settings = inputs;
  apply_recipe_run_settings(reference->recipe.run, with_reference_settings.request.workload);
  // ... and the reference's stack: a dispatcher it does not use may not be installed there
  // (DeepEP, HybridEP), so the search tries only the reference's.
  const std::string& dispatcher = reference->recipe.layout.dispatcher;
  if (with_reference_settings.request.search_dispatchers.empty())
    with_reference_settings.request.search_dispatchers = {dispatcher.empty() ? "alltoall"
                                                                             : dispatcher};
  Session session(with_reference_settings, options, slurm, observer, *log, *reference,
                  target_for(steps->framework));
  return session.run(resumed, problems);
}

}  // namespace openrecipes
