// The flags that say where and how a Slurm job runs (docs/measure.md, "Flags and what goes into
// the script"), shared by `measure` and `tune --slurm`, and what both need while following jobs:
// Ctrl-C that cancels first, and notes and a progress line on the terminal.
#pragma once

#include <CLI/CLI.hpp>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_options.h"
#include "cli/progress_line.h"
#include "measure/measure_request.h"
#include "measure/measure_run.h"

namespace openrecipes::cli {

/// Slurm's, pyxis's and the run's flags, as given.
struct SlurmJobFlags {
  std::string partition, account, qos, reservation, time, exclude, nodelist;
  std::vector<std::string> sbatch_args;
  std::string container_image, container_mounts;
  std::vector<std::string> env;  ///< NAME=VALUE each
  std::vector<std::string> set;  ///< NAME=VALUE each
  std::string model_args_file;
  std::string rows;
  bool gpu_request = true;
  double poll_s = 10;  ///< seconds between looks at a job
};

/// Adds --partition, --account, --qos, --reservation, --time, --exclude, --nodelist,
/// --sbatch-arg, --container-image, --container-mounts, --no-gpu-request and --poll-seconds.
void add_slurm_options(CLI::App& command, SlurmJobFlags& flags);

/// Adds --env, --set, --model-args-file and --rows.
void add_run_options(CLI::App& command, SlurmJobFlags& flags);

/// The request of `flags` (recipe_file and out_dir left to the caller), with the submitting
/// environment; nullopt, after printing a usage error for `command`, for an --env or --set
/// without NAME=.
std::optional<MeasureRequest> measure_request_from(const SlurmJobFlags& flags, const char* command,
                                                   OutputFormat format);

/// While alive, SIGINT and SIGTERM set a flag (stop_flag()) instead of ending the process, so
/// that the jobs can be cancelled first.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  /// Non-zero once a signal came.
  static const volatile std::sig_atomic_t* stop_flag();

 private:
  struct sigaction previous_[2];
};

/// Notes on standard error as `<command>: sentence`, a job's state on the progress line, and the
/// stop flag of StopOnSignal.
class TerminalObserver : public MeasureObserver {
 public:
  explicit TerminalObserver(const char* command) : command_(command) {}
  void note(const std::string& sentence) override;
  void progress(const JobProgress& seen) override;
  void progress_done() override { progress_.clear(); }
  const volatile std::sig_atomic_t* stop_flag() const override { return StopOnSignal::stop_flag(); }

 private:
  const char* command_;
  ProgressLine progress_;
};

}  // namespace openrecipes::cli
