#include "cli/measure_command.h"

#include <fmt/format.h>

#include <csignal>
#include <memory>

#include "base/error.h"
#include "cli/problem_output.h"
#include "cli/progress_line.h"
#include "cli/recipe_file.h"
#include "measure/measure_run.h"
#include "measure/slurm_client.h"

namespace openrecipes::cli {
namespace {

constexpr const char* kMe = "openrecipes measure";

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
  std::string format = "text";
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

// The workflow's notes on standard error, its job's state on the progress line, its stop flag
// the signal handler's.
class TerminalObserver : public MeasureObserver {
 public:
  void note(const std::string& sentence) override { fmt::print(stderr, "{}: {}\n", kMe, sentence); }
  void progress(const JobProgress& seen) override {
    progress_.show(fmt::format("job {} {}{}", seen.job_id, seen.state,
                               seen.latest_step.empty() ? "" : ", " + seen.latest_step),
                   true);
  }
  void progress_done() override { progress_.clear(); }
  const volatile std::sig_atomic_t* stop_flag() const override { return &g_stop; }

 private:
  ProgressLine progress_;
};

// The request from the flags; nullopt (a usage error, printed) for an --env without NAME=.
std::optional<MeasureRequest> request_from(const MeasureOptions& options) {
  MeasureRequest request;
  for (const std::string& pair : options.env) {
    std::size_t equals = pair.find('=');
    if (equals == std::string::npos || equals == 0) {
      fmt::print(stderr, "{}: --env {}: expected NAME=VALUE\n", kMe, pair);
      return std::nullopt;
    }
    request.env.emplace_back(pair.substr(0, equals), pair.substr(equals + 1));
  }
  request.recipe_file = options.recipe;
  request.partition = options.partition;
  request.account = options.account;
  request.container_image = options.container_image;
  request.gpu_request = options.gpu_request;
  request.out_dir = options.out;
  request.poll_interval_s = options.poll_s;
  return request;
}

// Runs the workflow on the real Slurm and prints the blocks (text) or the run (JSON).
int measure_on_slurm(const RecipeFile& recipe, const MeasureRequest& request, OutputFormat format) {
  SlurmClient slurm;
  TerminalObserver observer;
  StopOnSignal stop_on_signal;
  Problems problems;
  // Slurm's or the job's failures are IoErrors, printed by main as `openrecipes measure: ...`.
  std::optional<MeasuredRun> run =
      measure_recipe(recipe.recipe, recipe.catalog.catalog, request, slurm, observer, problems);
  if (!run) return problems.empty() ? kExitProblems : print_problems(problems, format);
  if (format == OutputFormat::kJson) {
    fmt::print("{}\n", measured_run_json(*run).dump(
                           2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } else {
    fmt::print("{}", run->text);
  }
  return kExitOk;
}

int run_measure(const GlobalOptions& global, const MeasureOptions& options) {
  OutputFormat format = output_format(options.format);
  if (!options.slurm) {
    fmt::print(stderr, "{}: give --slurm (Slurm is the scheduler measure runs on)\n", kMe);
    return kExitUsage;
  }
  std::optional<MeasureRequest> request = request_from(options);
  if (!request) return kExitUsage;
  Problems problems;
  std::optional<RecipeFile> recipe = read_recipe_file(global, options.recipe, problems);
  if (!recipe) return problems.empty() ? kExitUsage : print_problems(problems, format);
  if (!options.dry_run) return measure_on_slurm(*recipe, *request, format);
  std::optional<SbatchScript> script = measure_script(recipe->recipe, *request, problems);
  if (!script) return print_problems(problems, format);
  fmt::print("{}", script->text);
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
  command->add_option("--format", options->format, "Output format of the result and of errors")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_measure(global, *options); });
}

}  // namespace openrecipes::cli
