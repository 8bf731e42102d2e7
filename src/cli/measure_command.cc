#include "cli/measure_command.h"

#include <fmt/format.h>

#include <csignal>
#include <map>
#include <memory>

#include "base/error.h"
#include "cli/json_output.h"
#include "cli/problem_output.h"
#include "cli/progress_line.h"
#include "cli/recipe_file.h"
#include "measure/measure_run.h"
#include "measure/placeholders.h"
#include "measure/slurm_client.h"

namespace openrecipes::cli {
namespace {

constexpr const char* kMe = "openrecipes measure";

struct MeasureOptions {
  std::string recipe;
  bool slurm = false;
  std::string partition;
  std::string account;
  std::string qos;
  std::string reservation;
  std::string time;
  std::string exclude;
  std::string nodelist;
  std::vector<std::string> sbatch_args;
  std::string container_image;
  std::string container_mounts;
  std::vector<std::string> env;
  std::vector<std::string> set;
  std::string model_args_file;
  std::string rows;
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

// `pairs` (`NAME=VALUE` each) into `out`; false (a usage error, printed) for one without NAME=.
bool named_values(const char* flag, const std::vector<std::string>& pairs, NamedValues& out,
                  OutputFormat format) {
  for (const std::string& pair : pairs) {
    std::size_t equals = pair.find('=');
    if (equals == std::string::npos || equals == 0) {
      print_usage_error(kMe, fmt::format("{} {}: expected NAME=VALUE", flag, pair), format);
      return false;
    }
    out.emplace_back(pair.substr(0, equals), pair.substr(equals + 1));
  }
  return true;
}

extern "C" char** environ;

// This process's environment, which sbatch hands to the job (--export=ALL, its default).
std::map<std::string, std::string> submitting_environment() {
  std::map<std::string, std::string> out;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string text = *entry;
    std::size_t equals = text.find('=');
    if (equals != std::string::npos) out[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return out;
}

// The request from the flags; nullopt (a usage error, printed) for an --env or --set without
// NAME=.
std::optional<MeasureRequest> request_from(const MeasureOptions& options) {
  MeasureRequest request;
  OutputFormat format = output_format(options.format);
  if (!named_values("--env", options.env, request.env, format) ||
      !named_values("--set", options.set, request.set, format))
    return std::nullopt;
  request.recipe_file = options.recipe;
  request.partition = options.partition;
  request.account = options.account;
  request.qos = options.qos;
  request.reservation = options.reservation;
  request.time = options.time;
  request.exclude = options.exclude;
  request.nodelist = options.nodelist;
  request.sbatch_args = options.sbatch_args;
  request.container_image = options.container_image;
  request.container_mounts = options.container_mounts;
  request.model_args_file = options.model_args_file;
  request.rows_file = options.rows;
  request.submit_env = submitting_environment();
  request.gpu_request = options.gpu_request;
  request.out_dir = options.out;
  request.poll_interval_s = options.poll_s;
  return request;
}

// --dry-run: the script on standard output (text), or one JSON object with the script as a
// field; the pre-flight's notes on standard error (text) or in the object.
int print_dry_run(const SbatchScript& script, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    nlohmann::ordered_json out = {
        {"script", script.text},
        {"nodes", script.nodes},
        {"step_count",
         {{"flag", script.step_count.flag}, {"recipe_value", script.step_count.recipe_value}}},
        {"notes", script.notes}};
    print_json(out);
    return kExitOk;
  }
  for (const std::string& note : script.notes) fmt::print(stderr, "{}: {}\n", kMe, note);
  fmt::print("{}", script.text);
  return kExitOk;
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
    print_json(measured_run_json(*run));
  } else {
    fmt::print("{}", run->text);
  }
  return kExitOk;
}

int run_measure(const GlobalOptions& global, const MeasureOptions& options) {
  OutputFormat format = output_format(options.format);
  if (!options.slurm)
    return print_usage_error(kMe, "give --slurm (Slurm is the scheduler measure runs on)", format);
  std::optional<MeasureRequest> request = request_from(options);
  if (!request) return kExitUsage;
  Problems problems;
  std::optional<RecipeFile> recipe = read_recipe_file(global, options.recipe, problems);
  if (!recipe) return problems.empty() ? kExitUsage : print_problems(problems, format);
  request->document = &recipe->document;
  if (!options.dry_run) return measure_on_slurm(*recipe, *request, format);
  std::optional<SbatchScript> script = measure_script(recipe->recipe, *request, problems);
  if (!script) return print_problems(problems, format);
  return print_dry_run(*script, format);
}

// --set's help: the documented placeholders (placeholders.h, docs/measure.md).
std::string set_help() {
  std::string text =
      "NAME=VALUE filling the run's <NAME> placeholder (repeatable; NAME ignores case, and ' ', "
      "'_' and '-' are alike). Documented:";
  for (const DocumentedPlaceholder& p : documented_placeholders())
    text += fmt::format(" <{}>: {}, e.g. --set '{}={}'.", p.name, p.value_rule, p.name, p.example);
  return text + " Any other placeholder takes letters, digits and _ . / : = @ % + , -";
}

// Where the job runs: Slurm's and pyxis's options.
void add_slurm_options(CLI::App& command, MeasureOptions& options) {
  command.add_flag("--slurm", options.slurm, "Run it as a Slurm batch job (sbatch)");
  command.add_option("--partition", options.partition, "Slurm partition");
  command.add_option("--account", options.account, "Slurm account");
  command.add_option("--qos", options.qos, "Slurm quality of service");
  command.add_option("--reservation", options.reservation, "Slurm reservation");
  command.add_option("--time", options.time,
                     "Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS");
  command.add_option("--exclude", options.exclude, "Nodes Slurm must not use (a node list)");
  command.add_option("--nodelist", options.nodelist, "Nodes Slurm must use (a node list)");
  command
      .add_option("--sbatch-arg", options.sbatch_args,
                  "One more #SBATCH option, e.g. --sbatch-arg=--constraint=h200 (repeatable; no "
                  "blanks or quotes; not --nodes, --output or --error)")
      ->allow_extra_args(false);
  command.add_option("--container-image", options.container_image,
                     "Image for pyxis's srun --container-image");
  command.add_option("--container-mounts", options.container_mounts,
                     "pyxis's srun --container-mounts, SRC:DST[:FLAGS][,...] (needs "
                     "--container-image)");
  command.add_flag("!--no-gpu-request", options.gpu_request,
                   "Leave out --gpus-per-node (only for a cluster without GPUs, as the tests')");
}

// What the run needs: its environment, placeholders, arrays and rows.
void add_run_options(CLI::App& command, MeasureOptions& options) {
  command.add_option("--env", options.env, "NAME=VALUE to export in the job (repeatable)")
      ->allow_extra_args(false);
  command.add_option("--set", options.set, set_help())->allow_extra_args(false);
  command.add_option("--model-args-file", options.model_args_file,
                     "A bash file sourced before the run, defining the arrays it expands (e.g. "
                     "MODEL_ARGS, as slime's scripts/models/*.sh)");
  command.add_option("--rows", options.rows,
                     "The rows file the job trains on, checked as rows verify --recipe (default: "
                     "the local file the command's --prompt-data or --data-path names)");
}

}  // namespace

void add_measure_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<MeasureOptions>();
  CLI::App* command = app.add_subcommand("measure",
                                         "Run a recipe once under the protocol on Slurm (20 steps, "
                                         "scored over 5-19) and print its result and "
                                         "stack blocks");
  command->footer(
      "First, also for --dry-run, a pre-flight refuses, every problem at once: unfilled <...> "
      "placeholders (--set), variables the run reads that nothing sets (--env, the submitting "
      "environment; arrays through --model-args-file), a rows file that is missing or fails "
      "rows verify --recipe (--rows), and control characters in any flag (docs/measure.md).");
  command->add_option("RECIPE", options->recipe, "The recipe to run")->required();
  add_slurm_options(*command, *options);
  add_run_options(*command, *options);
  command->add_option(
      "--out", options->out,
      "Folder for the script, the log and the versions (default openrecipes-measure)");
  command->add_flag("--dry-run", options->dry_run,
                    "Run the pre-flight and print the batch script; submit nothing");
  command
      ->add_option("--poll-seconds", options->poll_s,
                   "Seconds between looks at the job (default 10)")
      ->check(CLI::Range(0.1, 3600.0));
  command
      ->add_option("--format", options->format,
                   "Output format of the result, the --dry-run script and errors")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_measure(global, *options); });
}

}  // namespace openrecipes::cli
