#include "measure/measure_run.h"

#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "catalog/protocol.h"
#include "measure/measure_result.h"
#include "measure/preflight.h"
#include "measure/stack_versions.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

std::string local_time(double seconds_since_epoch) {
  std::time_t seconds = static_cast<std::time_t>(seconds_since_epoch);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  return text;
}

// The first 64 KiB of the file, or "" when it cannot be read (the job may not have written it).
std::string read_small_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().substr(0, 1 << 16);
}

bool stop_requested(const MeasureObserver& observer) {
  const volatile std::sig_atomic_t* stop = observer.stop_flag();
  return stop && *stop != 0;
}

// Step 1: the out folder and the script in it; returns the script's path.
std::string write_script_file(const SbatchOptions& sbatch, const SbatchScript& script) {
  std::error_code ec;
  fs::create_directories(sbatch.out_dir, ec);
  if (ec) throw IoError(sbatch.out_dir, fmt::format("--out {}: {}", sbatch.out_dir, ec.message()));
  std::string script_path = sbatch.out_dir + "/measure.sbatch";
  std::ofstream out(script_path, std::ios::binary | std::ios::trunc);
  out << script.text;
  out.close();
  if (!out) throw IoError(script_path, fmt::format("could not write {}", script_path));
  return script_path;
}

// Step 3: follows the job to a final state. Returns nullopt when the observer stopped it (the
// job is then cancelled); throws IoError when Slurm lost it or cannot cancel it.
std::optional<FollowOutcome> follow_to_end(std::int64_t job_id, const std::string& log_path,
                                           const MeasureRequest& request, const SlurmApi& slurm,
                                           MeasureObserver& observer) {
  FollowOptions follow;
  follow.poll_interval_s = request.poll_interval_s;
  follow.stop = observer.stop_flag();
  FollowOutcome outcome = follow_job(
      job_id, log_path, [&] { return slurm.job(job_id); },
      [&](const JobProgress& seen) { observer.progress(seen); }, follow);
  observer.progress_done();
  if (outcome.stopped) {
    std::string error = slurm.cancel(job_id);
    if (!error.empty()) {
      throw IoError("scancel",
                    fmt::format("could not cancel job {}: {} (cancel it with scancel {})", job_id,
                                error, job_id));
    }
    observer.note(fmt::format("cancelled job {}", job_id));
    return std::nullopt;
  }
  if (outcome.lost) {
    throw IoError(log_path,
                  fmt::format("job {}: Slurm no longer knows the job (neither scontrol nor sacct); "
                              "log: {}",
                              job_id, log_path));
  }
  return outcome;
}

// Step 4: the job's final record, with its times: accounting's where it has them.
JobRecord final_record(std::int64_t job_id, const std::string& log_path,
                       const FollowOutcome& outcome, const SlurmApi& slurm,
                       MeasureObserver& observer) {
  std::optional<JobRecord> job = slurm.finished_job(job_id);
  if (!job) job = outcome.job;
  if (!job) {
    throw IoError(log_path, fmt::format("job {}: Slurm gave no record of the job; log: {}", job_id,
                                        log_path));
  }
  observer.note(fmt::format("job {} {} (times from {})", job_id, job->state, job->source));
  return *job;
}

// Step 5: the log scored under the protocol, with the catalog's price, peak and N.
ResultBlock score_job(const Recipe& recipe, const Catalog& catalog, const JobRecord& job,
                      const std::string& log_path, int steps) {
  ScoreSetup setup{recipe.gpu.count, recipe.workload.global_batch, recipe.workload.row_tokens,
                   kWindowFirstStep, kWindowLastStep};
  ResultBlock block = measured_result(job, log_path, setup, steps);
  if (const Gpu* gpu = catalog.find_gpu(recipe.gpu.type)) {
    block.usd_per_gpu_hour = gpu->usd_per_gpu_hour;
    block.peak_flop_per_s = gpu->peak_bf16_dense_flop_per_s;
  }
  if (const Model* model = catalog.find_model(recipe.model))
    block.active_params = model->active_params;
  return block;
}

// Step 6: the stack's versions the job's first step wrote beside the log.
NamedValues read_stack(const std::string& out_dir, std::int64_t job_id, RunFramework framework,
                       MeasureObserver& observer) {
  std::string versions_path = job_versions_path(out_dir, job_id);
  std::string versions = read_small_file(versions_path);
  if (versions.empty()) {
    observer.note(
        fmt::format("job {}: no versions in {}; stack is not pinned", job_id, versions_path));
  }
  return parse_stack_versions(versions, framework);
}

// Step 7: the printed text: the job's times and the window as comments, then the blocks, redacted.
std::string measured_text(const MeasuredRun& run, const RedactionTerms& terms) {
  const ResultBlock& block = run.block;
  std::string out =
      fmt::format("# job {}: {} x {} GPUs, Slurm StartTime {} to EndTime {}: {:.0f} s\n",
                  run.job_id, run.nodes, run.gpus_per_node, local_time(run.start_time_s),
                  local_time(run.end_time_s), run.end_time_s - run.start_time_s);
  out += fmt::format("# window {}-{}: {} tokens in {:.3f} s on {} GPUs (mean step {:.3f} s)\n",
                     block.setup.window_first, block.setup.window_last, block.score.window_tokens,
                     block.score.window_seconds, block.setup.gpus, block.score.mean_step_time_s);
  out += result_block_yaml(block);
  return redact_yaml_block(out, terms) + stack_block_yaml(run.stack);
}

// Adds the names of the job's nodes: `gpu-a[01-04],gpu-b7` gives the list, each part and each
// part's prefix.
void add_node_names(RedactionTerms& terms, const std::string& node_list) {
  terms.add(node_list, "<nodes>");
  std::string part;
  int depth = 0;
  for (char c : node_list + ",") {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      terms.add(part, "<node>");
      terms.add(part.substr(0, part.find('[')), "<node>");
      part.clear();
    } else {
      part += c;
    }
  }
}

}  // namespace

SbatchOptions sbatch_options_for(const MeasureRequest& request) {
  SbatchOptions sbatch;
  std::error_code ec;
  sbatch.recipe_name = fs::path(request.recipe_file).filename().string();
  sbatch.recipe_file = request.recipe_file;
  sbatch.out_dir = fs::absolute(request.out_dir, ec).lexically_normal().string();
  while (sbatch.out_dir.size() > 1 && sbatch.out_dir.back() == '/') sbatch.out_dir.pop_back();
  sbatch.partition = request.partition;
  sbatch.account = request.account;
  sbatch.qos = request.qos;
  sbatch.reservation = request.reservation;
  sbatch.time = request.time;
  sbatch.exclude = request.exclude;
  sbatch.nodelist = request.nodelist;
  sbatch.sbatch_args = request.sbatch_args;
  sbatch.container_image = request.container_image;
  sbatch.container_mounts = request.container_mounts;
  if (!request.model_args_file.empty())
    sbatch.model_args_file = fs::absolute(request.model_args_file, ec).lexically_normal().string();
  sbatch.env = request.env;
  sbatch.gpu_request = request.gpu_request;
  return sbatch;
}

std::optional<SbatchScript> measure_script(const Recipe& recipe, const MeasureRequest& request,
                                           Problems& problems) {
  std::size_t before = problems.size();
  MeasurePreflight preflight = preflight_measure(recipe, request);
  Recipe filled = recipe;
  filled.run = preflight.run;
  // Pure: the text is only kept when neither it nor the pre-flight found a problem.
  std::optional<SbatchScript> script =
      write_sbatch_script(filled, sbatch_options_for(request), problems);
  if (!preflight.problems.empty()) {
    problems.insert(problems.begin() + static_cast<std::ptrdiff_t>(before),
                    preflight.problems.begin(), preflight.problems.end());
    return std::nullopt;
  }
  if (script) script->notes = std::move(preflight.notes);
  return script;
}

RedactionTerms measure_redaction_terms(const MeasureRequest& request, const JobRecord& job,
                                       const std::string& cluster) {
  RedactionTerms terms;
  terms.add(cluster, "<cluster>");
  terms.add(request.account, "<account>");
  terms.add(job.account, "<account>");
  terms.add(request.partition, "<partition>");
  terms.add(job.partition, "<partition>");
  terms.add(request.container_image, "<image>");
  add_node_names(terms, job.node_list);
  for (const auto& [name, value] : request.env) terms.add(value, "<" + name + ">");
  return terms;
}

std::optional<SubmittedMeasurement> submit_measurement(const Recipe& recipe,
                                                       const MeasureRequest& request,
                                                       const SlurmApi& slurm,
                                                       MeasureObserver& observer,
                                                       Problems& problems) {
  SbatchOptions sbatch = sbatch_options_for(request);
  std::optional<SbatchScript> script = measure_script(recipe, request, problems);
  if (!script) return std::nullopt;
  if (!slurm.available()) {
    throw IoError("sbatch",
                  "Slurm's commands are not on PATH (no sbatch): run on a Slurm login node, or "
                  "add Slurm's bin folder to PATH");
  }
  std::string script_path = write_script_file(sbatch, *script);
  observer.note(fmt::format("{} set to {} (the recipe's run says {})", script->step_count.flag,
                            sbatch.steps, script->step_count.recipe_value));
  for (const std::string& note : script->notes) observer.note(note);
  if (stop_requested(observer)) return std::nullopt;

  SubmittedMeasurement submitted;
  submitted.job_id = slurm.submit(script_path, &submitted.cluster);
  submitted.nodes = script->nodes;
  submitted.out_dir = sbatch.out_dir;
  submitted.log_path = job_log_path(sbatch.out_dir, submitted.job_id);
  submitted.steps = sbatch.steps;
  submitted.framework = script->step_count.framework;
  observer.note(fmt::format("submitted job {} ({} node(s)); log: {}", submitted.job_id,
                            submitted.nodes, submitted.log_path));
  return submitted;
}

std::optional<SubmittedMeasurement> attach_measurement(const Recipe& recipe,
                                                       const MeasureRequest& request,
                                                       std::int64_t job_id, Problems& problems) {
  SbatchOptions sbatch = sbatch_options_for(request);
  std::optional<SbatchScript> script = measure_script(recipe, request, problems);
  if (!script) return std::nullopt;
  SubmittedMeasurement submitted;
  submitted.job_id = job_id;
  submitted.nodes = script->nodes;
  submitted.out_dir = sbatch.out_dir;
  submitted.log_path = job_log_path(sbatch.out_dir, job_id);
  submitted.steps = sbatch.steps;
  submitted.framework = script->step_count.framework;
  return submitted;
}

JobRecord finished_job_record(const SubmittedMeasurement& submitted,
                              const std::optional<JobRecord>& last_seen, const SlurmApi& slurm,
                              MeasureObserver& observer) {
  FollowOutcome outcome;
  outcome.job = last_seen;
  return final_record(submitted.job_id, submitted.log_path, outcome, slurm, observer);
}

MeasuredRun score_measurement(const Recipe& recipe, const Catalog& catalog,
                              const MeasureRequest& request, const SubmittedMeasurement& submitted,
                              const JobRecord& job, const SlurmApi& slurm,
                              MeasureObserver& observer) {
  MeasuredRun run;
  run.job_id = submitted.job_id;
  run.block = score_job(recipe, catalog, job, submitted.log_path, submitted.steps);
  run.nodes = submitted.nodes;
  run.gpus_per_node = recipe.gpu.per_node;
  run.start_time_s = *job.start_time_s;  // measured_result refuses a job without both times
  run.end_time_s = *job.end_time_s;
  run.stack = read_stack(submitted.out_dir, run.job_id, submitted.framework, observer);
  std::string cluster = submitted.cluster.empty() ? slurm.cluster_name() : submitted.cluster;
  RedactionTerms terms = measure_redaction_terms(request, job, cluster);
  for (auto& [name, value] : run.stack) value = redact(value, terms);
  run.text = measured_text(run, terms);
  return run;
}

std::optional<MeasuredRun> measure_recipe(const Recipe& recipe, const Catalog& catalog,
                                          const MeasureRequest& request, const SlurmApi& slurm,
                                          MeasureObserver& observer, Problems& problems) {
  std::optional<SubmittedMeasurement> submitted =
      submit_measurement(recipe, request, slurm, observer, problems);
  if (!submitted) return std::nullopt;
  std::optional<FollowOutcome> outcome =
      follow_to_end(submitted->job_id, submitted->log_path, request, slurm, observer);
  if (!outcome) return std::nullopt;
  JobRecord job = final_record(submitted->job_id, submitted->log_path, *outcome, slurm, observer);
  return score_measurement(recipe, catalog, request, *submitted, job, slurm, observer);
}

nlohmann::ordered_json measured_run_json(const MeasuredRun& run) {
  nlohmann::ordered_json stack = nlohmann::ordered_json::object();
  for (const auto& [name, value] : run.stack) stack[name] = value;
  return {{"job", run.job_id},
          {"nodes", run.nodes},
          {"gpus_per_node", run.gpus_per_node},
          {"start_time_s", run.start_time_s},
          {"end_time_s", run.end_time_s},
          {"result", result_block_json(run.block)},
          {"stack", stack}};
}

}  // namespace openrecipes
