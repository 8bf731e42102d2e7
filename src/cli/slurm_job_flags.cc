#include "cli/slurm_job_flags.h"

#include <fmt/format.h>

#include <map>

#include "cli/number_options.h"
#include "cli/problem_output.h"
#include "measure/placeholders.h"

namespace openrecipes::cli {
namespace {

volatile std::sig_atomic_t g_stop = 0;
extern "C" void request_stop(int) { g_stop = 1; }

// `pairs` (`NAME=VALUE` each) into `out`; false (a usage error, printed) for one without NAME=.
bool named_values(const char* command, const char* flag, const std::vector<std::string>& pairs,
                  NamedValues& out, OutputFormat format) {
  for (const std::string& pair : pairs) {
    std::size_t equals = pair.find('=');
    if (equals == std::string::npos || equals == 0) {
      print_usage_error(command, fmt::format("{} {}: expected NAME=VALUE", flag, pair), format);
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

// --set's help: the documented placeholders (placeholders.h, docs/measure.md).
std::string set_help() {
  std::string text =
      "NAME=VALUE filling the run's <NAME> placeholder (repeatable; NAME ignores case, and ' ', "
      "'_' and '-' are alike). Documented:";
  for (const DocumentedPlaceholder& p : documented_placeholders())
    text += fmt::format(" <{}>: {}, e.g. --set '{}={}'.", p.name, p.value_rule, p.name, p.example);
  return text + " Any other placeholder takes letters, digits and _ . / : = @ % + , -";
}

}  // namespace

void add_slurm_options(CLI::App& command, SlurmJobFlags& options) {
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
  command
      .add_option("--poll-seconds", options.poll_s, "Seconds between looks at a job (default 10)")
      ->check(real_number(0.1, 3600));
}

// What the run needs: its environment, placeholders, arrays and rows.
void add_run_options(CLI::App& command, SlurmJobFlags& options) {
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

std::optional<MeasureRequest> measure_request_from(const SlurmJobFlags& options,
                                                   const char* command, OutputFormat format) {
  MeasureRequest request;
  // CLI11's range check lets NaN through (every comparison with it is false).
  if (!(options.poll_s >= 0.1 && options.poll_s <= 3600)) {
    print_usage_error(
        command, fmt::format("--poll-seconds {}: expected 0.1 to 3600", options.poll_s), format);
    return std::nullopt;
  }
  if (!named_values(command, "--env", options.env, request.env, format) ||
      !named_values(command, "--set", options.set, request.set, format))
    return std::nullopt;
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
  request.poll_interval_s = options.poll_s;
  return request;
}

StopOnSignal::StopOnSignal() {
  g_stop = 0;
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previous_[0]);
  sigaction(SIGTERM, &action, &previous_[1]);
}

StopOnSignal::~StopOnSignal() {
  sigaction(SIGINT, &previous_[0], nullptr);
  sigaction(SIGTERM, &previous_[1], nullptr);
}

const volatile std::sig_atomic_t* StopOnSignal::stop_flag() { return &g_stop; }

void TerminalObserver::note(const std::string& sentence) {
  progress_.clear();
  fmt::print(stderr, "{}: {}\n", command_, sentence);
}

void TerminalObserver::progress(const JobProgress& seen) {
  progress_.show(fmt::format("job {} {}{}", seen.job_id, seen.state,
                             seen.latest_step.empty() ? "" : ", " + seen.latest_step),
                 true);
}

}  // namespace openrecipes::cli
