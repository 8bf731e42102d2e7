// `openrecipes tune --slurm` (docs/tune.md): the loop from plan to a verified recipe. Propose
// the next layouts (layout_proposals.h) from a speed model recalibrated on every result
// (session_learning.h), measure each as `measure` does (measure/measure_run.h, up to `parallel`
// jobs at once), classify a failed job (measure/job_failure.h), stop at the budget, the run count
// or when nothing left is predicted to beat the best measured by more than its band, then run the
// reference recipe's arm and write the winner with `finalize` (recipe_finalizer.h). Every step is
// an event of the state folder's log (tune_log.h), from which a later call resumes.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/catalog.h"
#include "measure/measure_request.h"
#include "measure/measure_run.h"
#include "plan/layout_request.h"
#include "plan/speed_calibration.h"
#include "runs/argument_rules.h"

namespace openrecipes {

/// What the loop works on: the catalog and what the planner derived from it.
struct TuneInputs {
  const Catalog* catalog = nullptr;
  /// The catalog's verified recipes and the usable published measurements (planner_context.h).
  const std::vector<MeasuredLayout>* measured = nullptr;
  const ArgumentRules* rules = nullptr;
  PlanRequest request;     ///< model, GPU type and count, workload; no layout
  std::string model_text;  ///< --model as given, for the proposals' export flags
  /// Fits the speed model on the rows given, with the leave-one-model-out refits (the error bands)
  /// when the flag is true: calibrate_speed_model (tests pass a cheaper one).
  std::function<SpeedCalibration(const std::vector<MeasuredLayout>&, bool)> calibrate;
};

/// The flags of `tune --slurm`.
struct TuneOptions {
  std::filesystem::path root;  ///< the catalog the recipe joins
  std::string state_dir = "openrecipes-tune";
  std::string reference;                   ///< the reference recipe's path, as named
  std::string author;                      ///< the GitHub handle the recipe is written under
  std::optional<double> budget_gpu_hours;  ///< GPU-hours the search may spend (Slurm's times)
  int max_runs = 8;                        ///< runs the search may submit
  int parallel = 1;                        ///< jobs at once
  std::string variant;                     ///< the recipe file name's `-<variant>`, or ""
  bool replace = false;                    ///< replace a recipe already at the path
  /// A program that replaces the proposal step (docs/tune.md, "Your own proposal step"): run as
  /// `PROGRAM INPUT.json` whenever the loop has room for a run; it prints the layouts to run.
  /// Empty: the built-in step (layout_proposals.h).
  std::string proposer;
  /// The Slurm and run flags every job shares (partition, account, image, --env, --set, ...);
  /// recipe_file, out_dir and document are set per job.
  MeasureRequest measure;
};

/// How the session ended.
enum class TuneEnding {
  kVerified,     ///< a verified recipe was written
  kUnverified,   ///< a recipe was written that failed a part of the correctness check
  kNoRecipe,     ///< no run was measured, the reference arm failed, or finalize refused
  kInterrupted,  ///< the stop flag (Ctrl-C) ended it; its jobs were cancelled
};

/// The session's outcome.
struct TuneOutcome {
  TuneEnding ending = TuneEnding::kNoRecipe;
  /// The summary (`--format json`): model, gpu, gpus, state, stop {reason, detail}, gpu_hours,
  /// runs [{run, layout, recompute, label, job, predicted_tokens_per_s_per_gpu, band,
  /// tokens_per_s_per_gpu, error, failure, detail, gpu_hours}], best, reference, recipe.
  nlohmann::ordered_json summary;
};

/// Runs (or resumes, from options.state_dir's log) the session on `slurm`, telling `observer` as
/// it goes; the observer's stop flag cancels the jobs it submitted (and only those) and ends it.
/// An outcome may come with problems too: finalize's, when it refused the winner's recipe
/// (ending kNoRecipe).
/// Returns nullopt with problems for bad input found before anything is submitted: the reference
/// recipe (not readable, another model, no rows), a state folder of another session (other model,
/// GPU, count or reference) or a broken log, a draft the pre-flight refuses (measure's problems,
/// at the draft in the run's folder), a proposer's answer that is not the documented JSON or names
/// a layout the planner does not rank (rule tune.proposer). Throws IoError when Slurm's commands
/// fail, the proposer cannot run or exits non-zero, or a file cannot be written.
std::optional<TuneOutcome> run_tune_session(const TuneInputs& inputs, const TuneOptions& options,
                                            const SlurmApi& slurm, MeasureObserver& observer,
                                            Problems& problems);

}  // namespace openrecipes
