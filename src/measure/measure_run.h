// `openrecipes measure`'s workflow (docs/run-evidence.md): a recipe run once under the protocol on
// Slurm (README.md: 20 steps, scored over steps 5-19). Write the batch script, submit it, follow
// the job to its end, take its times from Slurm, score its log, read the stack's versions, take out
// what names the cluster, and give the recipe's `result` and `stack` blocks.
//
// Errors: bad input (the recipe, a flag) is Problems; what fails outside this process — Slurm's
// commands missing or refusing, a job that ends without a result, a folder that cannot be written —
// is IoError (base/error.h) whose message names the job id and its log once a job exists.
#pragma once

#include <csignal>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/problem.h"
#include "catalog/catalog.h"
#include "catalog/recipe.h"
#include "measure/job_follow.h"
#include "measure/measure_request.h"
#include "measure/redaction.h"
#include "measure/sbatch_script.h"
#include "measure/slurm_client.h"
#include "measure/step_count.h"
#include "runs/result_block.h"

namespace openrecipes {

/// What the workflow tells its caller while it runs, and how the caller stops it.
class MeasureObserver {
 public:
  virtual ~MeasureObserver() = default;
  /// One sentence about the run ("submitted job 12 (1 node(s)); log: ..."), without a prefix.
  virtual void note(const std::string& sentence) = 0;
  /// One look at the job while following it.
  virtual void progress(const JobProgress& seen) = 0;
  /// Following has ended: a progress line can be cleared.
  virtual void progress_done() {}
  /// Non-zero once the caller wants the job cancelled (a signal handler sets it); may be null.
  virtual const volatile std::sig_atomic_t* stop_flag() const = 0;
};

/// A measured run: the job, its blocks, and the text `measure` prints.
struct MeasuredRun {
  std::int64_t job_id = 0;
  int nodes = 0;
  int gpus_per_node = 0;
  double start_time_s = 0;  ///< Slurm's StartTime, seconds since the epoch
  double end_time_s = 0;    ///< Slurm's EndTime, seconds since the epoch
  ResultBlock block;        ///< the `result` block's figures
  NamedValues stack;        ///< the `stack` block's fields, redacted
  /// Two comment lines (the job's times, the window), the `result` block and the `stack` block,
  /// redacted (redaction.h): ready to paste into the recipe.
  std::string text;
};

/// The sbatch options for `request`: the out folder made absolute (no trailing '/'), the recipe's
/// file name for the script's header.
SbatchOptions sbatch_options_for(const MeasureRequest& request);

/// The batch script for `recipe` (what `--dry-run` prints): the pre-flight (preflight.h) first,
/// every problem at once, then write_sbatch_script on the run with its placeholders filled.
/// nullopt with problems when the recipe or a flag cannot be run; nothing is written. Throws
/// IoError only when a rows file that exists cannot be read.
std::optional<SbatchScript> measure_script(const Recipe& recipe, const MeasureRequest& request,
                                           Problems& problems);

/// A job `measure` submitted: what following and scoring it needs, also in a later process
/// (attach_measurement), so a tuner can run several at once and re-attach after a restart.
struct SubmittedMeasurement {
  std::int64_t job_id = 0;
  int nodes = 0;
  std::string out_dir;   ///< absolute: the script, the log and the versions
  std::string log_path;  ///< job_log_path(out_dir, job_id)
  std::string cluster;   ///< as sbatch named it; empty when it did not
  int steps = 0;         ///< the protocol's steps the script forces
  RunFramework framework = RunFramework::kMegatronLm;  ///< for the stack's versions
};

/// Steps 1-2 of the workflow: the pre-flight and the script (measure_script), the script written
/// to the out folder and submitted. nullopt with problems for bad input (nothing written or
/// submitted), nullopt without problems when the observer's stop flag was set before submission.
/// Throws IoError as measure_recipe does.
std::optional<SubmittedMeasurement> submit_measurement(const Recipe& recipe,
                                                       const MeasureRequest& request,
                                                       const SlurmApi& slurm,
                                                       MeasureObserver& observer,
                                                       Problems& problems);

/// The SubmittedMeasurement of job `job_id`, which an earlier process submitted for `recipe` with
/// `request`: the script is recomputed to learn its nodes and steps, and neither written nor
/// submitted. nullopt with problems when the recipe no longer passes the pre-flight.
std::optional<SubmittedMeasurement> attach_measurement(const Recipe& recipe,
                                                       const MeasureRequest& request,
                                                       std::int64_t job_id, Problems& problems);

/// The final record of a job whose state is final: accounting's (finished_job) where it has it,
/// else `last_seen`. Throws IoError naming the job and its log when Slurm has neither.
JobRecord finished_job_record(const SubmittedMeasurement& submitted,
                              const std::optional<JobRecord>& last_seen, const SlurmApi& slurm,
                              MeasureObserver& observer);

/// Steps 5-7: the finished `job` scored under the protocol (with the catalog's price, peak and N),
/// its stack read and redacted, the text made. Throws IoError (naming the job and its log) when
/// the job did not complete or its log gives no score (measure_result.h).
MeasuredRun score_measurement(const Recipe& recipe, const Catalog& catalog,
                              const MeasureRequest& request, const SubmittedMeasurement& submitted,
                              const JobRecord& job, const SlurmApi& slurm,
                              MeasureObserver& observer);

/// The whole workflow on `slurm`, telling `observer` as it goes. Returns the measured run;
/// nullopt with problems for bad input (measure_script refused it: nothing written or submitted),
/// nullopt without problems when the observer's stop flag ended it (the job cancelled, or never
/// submitted). Throws IoError when Slurm's commands are missing or fail, the out folder or script
/// cannot be written, or the job gives no result (its message names the job id and its log).
std::optional<MeasuredRun> measure_recipe(const Recipe& recipe, const Catalog& catalog,
                                          const MeasureRequest& request, const SlurmApi& slurm,
                                          MeasureObserver& observer, Problems& problems);

/// What to take out of the printed blocks: the cluster, the account and partition (asked for and
/// Slurm's), the image, the job's node names (`gpu-a[01-04],gpu-b7`: the list, each part and
/// each part's prefix) and every --env value.
RedactionTerms measure_redaction_terms(const MeasureRequest& request, const JobRecord& job,
                                       const std::string& cluster);

/// The measured run as JSON: job, nodes, gpus_per_node, start_time_s, end_time_s, result
/// (result_block_json) and stack (an object of the stack fields).
nlohmann::ordered_json measured_run_json(const MeasuredRun& run);

}  // namespace openrecipes
