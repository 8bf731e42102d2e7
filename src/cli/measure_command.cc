#include "cli/measure_command.h"

#include <fmt/format.h>

#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "cli/progress_line.h"
#include "cli/recipe_file.h"
#include "measure/job_follow.h"
#include "measure/measure_error.h"
#include "measure/measure_result.h"
#include "measure/redaction.h"
#include "measure/sbatch_script.h"
#include "measure/slurm_client.h"
#include "measure/stack_versions.h"
#include "measure/subprocess.h"
#include "runs/result_block.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct MeasureOptions {
  std::string recipe;
  bool slurm = false;
  std::string partition;
  std::string account;
  std::string container_image;
  std::vector<std::string> env;
  bool dry_run = false;
  bool gpu_request = true;
  std::string out = "openrecipes-measure";
  double poll_s = 10;
};

volatile std::sig_atomic_t g_stop = 0;
extern "C" void request_stop(int) { g_stop = 1; }

// While alive, SIGINT and SIGTERM set g_stop instead of ending the process, so that the job can
// be cancelled first.
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop = 0;
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_[0]);
    sigaction(SIGTERM, &action, &previous_[1]);
  }
  ~StopOnSignal() {
    sigaction(SIGINT, &previous_[0], nullptr);
    sigaction(SIGTERM, &previous_[1], nullptr);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  struct sigaction previous_[2];
};

std::string local_time(double seconds_since_epoch) {
  std::time_t seconds = static_cast<std::time_t>(seconds_since_epoch);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  return text;
}

std::string read_small_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().substr(0, 1 << 16);
}

// Names of the job's nodes: `gpu-a[01-04],gpu-b7` gives the list, each part and each prefix.
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

int run_measure(const GlobalOptions& global, const MeasureOptions& options) {
  const char* me = "openrecipes measure";
  if (!options.slurm) {
    fmt::print(stderr, "{}: give --slurm (Slurm is the scheduler measure runs on)\n", me);
    return kExitUsage;
  }
  SbatchOptions sbatch;
  for (const std::string& pair : options.env) {
    std::size_t equals = pair.find('=');
    if (equals == std::string::npos || equals == 0) {
      fmt::print(stderr, "{}: --env {}: expected NAME=VALUE\n", me, pair);
      return kExitUsage;
    }
    sbatch.env.emplace_back(pair.substr(0, equals), pair.substr(equals + 1));
  }
  Problems problems;
  std::optional<RecipeFile> recipe = read_recipe_file(global, options.recipe, problems);
  if (!recipe) {
    for (const Problem& problem : problems)
      fmt::print(stderr, "{}\n", format_problem_line(problem));
    return problems.empty() ? kExitUsage : kExitProblems;
  }
  const Recipe& r = recipe->recipe;
  std::error_code ec;
  sbatch.recipe_name = fs::path(options.recipe).filename().string();
  sbatch.out_dir = fs::absolute(options.out, ec).lexically_normal().string();
  while (sbatch.out_dir.size() > 1 && sbatch.out_dir.back() == '/') sbatch.out_dir.pop_back();
  sbatch.partition = options.partition;
  sbatch.account = options.account;
  sbatch.container_image = options.container_image;
  sbatch.gpu_request = options.gpu_request;
  SbatchScript script;
  try {
    script = write_sbatch_script(r, sbatch);
  } catch (const MeasureError& error) {
    fmt::print(stderr, "{}: {}: {}\n", me, options.recipe, error.what());
    return kExitProblems;
  }
  if (options.dry_run) {
    fmt::print("{}", script.text);
    return kExitOk;
  }
  if (!program_on_path("sbatch")) {
    fmt::print(stderr,
               "{}: Slurm's commands are not on PATH (no sbatch): run on a Slurm login node, or "
               "add Slurm's "
               "bin folder to PATH\n",
               me);
    return kExitProblems;
  }
  fs::create_directories(sbatch.out_dir, ec);
  if (ec) {
    fmt::print(stderr, "{}: --out {}: {}\n", me, sbatch.out_dir, ec.message());
    return kExitProblems;
  }
  std::string script_path = sbatch.out_dir + "/measure.sbatch";
  {
    std::ofstream out(script_path, std::ios::binary | std::ios::trunc);
    out << script.text;
    if (!out) {
      fmt::print(stderr, "{}: could not write {}\n", me, script_path);
      return kExitProblems;
    }
  }
  fmt::print(stderr, "{}: {} set to {} (the recipe's run says {})\n", me, script.step_count.flag,
             sbatch.steps, script.step_count.recipe_value);

  SlurmClient slurm;
  StopOnSignal stop_on_signal;
  std::string cluster;
  std::int64_t job_id = 0;
  try {
    job_id = slurm.submit(script_path, &cluster);
  } catch (const MeasureError& error) {
    fmt::print(stderr, "{}: {}\n", me, error.what());
    return kExitProblems;
  }
  std::string log_path = job_log_path(sbatch.out_dir, job_id);
  fmt::print(stderr, "{}: submitted job {} ({} node(s)); log: {}\n", me, job_id, script.nodes,
             log_path);

  ProgressLine progress;
  FollowOptions follow;
  follow.poll_interval_s = options.poll_s;
  follow.stop = &g_stop;
  FollowOutcome outcome = follow_job(
      job_id, log_path, [&] { return slurm.job(job_id); },
      [&](const JobProgress& seen) {
        progress.show(fmt::format("job {} {}{}", seen.job_id, seen.state,
                                  seen.latest_step.empty() ? "" : ", " + seen.latest_step),
                      true);
      },
      follow);
  progress.clear();
  if (outcome.stopped) {
    std::string error = slurm.cancel(job_id);
    if (error.empty()) {
      fmt::print(stderr, "{}: cancelled job {}\n", me, job_id);
    } else {
      fmt::print(stderr, "{}: could not cancel job {}: {} (cancel it with scancel {})\n", me,
                 job_id, error, job_id);
    }
    return kExitProblems;
  }
  if (outcome.lost) {
    fmt::print(stderr,
               "{}: job {}: Slurm no longer knows the job (neither scontrol nor sacct); log: {}\n",
               me, job_id, log_path);
    return kExitProblems;
  }
  std::optional<JobRecord> job = slurm.finished_job(job_id);
  if (!job) job = outcome.job;
  if (!job) {
    fmt::print(stderr, "{}: job {}: Slurm gave no record of the job; log: {}\n", me, job_id,
               log_path);
    return kExitProblems;
  }
  fmt::print(stderr, "{}: job {} {} (times from {})\n", me, job_id, job->state, job->source);

  ScoreSetup setup{r.gpu.count, r.workload.global_batch, r.workload.row_tokens, 5, 19};
  ResultBlock block;
  try {
    block = measured_result(*job, log_path, setup, sbatch.steps);
  } catch (const MeasureError& error) {
    fmt::print(stderr, "{}: {}\n", me, error.what());
    return kExitProblems;
  }
  if (const Gpu* gpu = recipe->catalog.catalog.find_gpu(r.gpu.type)) {
    block.usd_per_gpu_hour = gpu->usd_per_gpu_hour;
    block.peak_flop_per_s = gpu->peak_bf16_dense_flop_per_s;
  }
  if (const Model* model = recipe->catalog.catalog.find_model(r.model))
    block.active_params = model->active_params;

  std::string versions_path = job_versions_path(sbatch.out_dir, job_id);
  std::string versions = read_small_file(versions_path);
  if (versions.empty())
    fmt::print(stderr, "{}: job {}: no versions in {}; stack is not pinned\n", me, job_id,
               versions_path);
  NamedValues stack = parse_stack_versions(versions, script.step_count.framework);

  RedactionTerms terms;
  if (cluster.empty()) cluster = slurm.cluster_name();
  terms.add(cluster, "<cluster>");
  terms.add(options.account, "<account>");
  terms.add(job->account, "<account>");
  terms.add(options.partition, "<partition>");
  terms.add(job->partition, "<partition>");
  terms.add(options.container_image, "<image>");
  add_node_names(terms, job->node_list);
  for (const auto& [name, value] : sbatch.env) terms.add(value, "<" + name + ">");
  for (auto& [name, value] : stack) value = redact(value, terms);

  std::string out =
      fmt::format("# job {}: {} x {} GPUs, Slurm StartTime {} to EndTime {}: {:.0f} s\n", job_id,
                  script.nodes, r.gpu.per_node, local_time(*job->start_time_s),
                  local_time(*job->end_time_s), *job->end_time_s - *job->start_time_s);
  out += fmt::format("# window {}-{}: {} tokens in {:.3f} s on {} GPUs (mean step {:.3f} s)\n",
                     setup.window_first, setup.window_last, block.score.window_tokens,
                     block.score.window_seconds, setup.gpus, block.score.mean_step_time_s);
  out += result_block_yaml(block);
  fmt::print("{}{}", redact_yaml_block(out, terms), stack_block_yaml(stack));
  return kExitOk;
}

}  // namespace

void add_measure_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<MeasureOptions>();
  CLI::App* command = app.add_subcommand("measure",
                                         "Run a recipe once under the protocol on Slurm (20 steps, "
                                         "scored over 5-19) and print its result and "
                                         "stack blocks");
  command->add_option("RECIPE", options->recipe, "The recipe to run")->required();
  command->add_flag("--slurm", options->slurm, "Run it as a Slurm batch job (sbatch)");
  command->add_option("--partition", options->partition, "Slurm partition");
  command->add_option("--account", options->account, "Slurm account");
  command->add_option("--container-image", options->container_image,
                      "Image for pyxis's srun --container-image");
  command->add_option("--env", options->env, "NAME=VALUE to export in the job (repeatable)")
      ->allow_extra_args(false);
  command->add_option(
      "--out", options->out,
      "Folder for the script, the log and the versions (default openrecipes-measure)");
  command->add_flag("--dry-run", options->dry_run, "Print the batch script; submit nothing");
  command->add_flag("!--no-gpu-request", options->gpu_request,
                    "Leave out --gpus-per-node (only for a cluster without GPUs, as the tests')");
  command
      ->add_option("--poll-seconds", options->poll_s,
                   "Seconds between looks at the job (default 10)")
      ->check(CLI::Range(0.1, 3600.0));
  command->callback([&global, &exit_code, options] { exit_code = run_measure(global, *options); });
}

}  // namespace openrecipes::cli
