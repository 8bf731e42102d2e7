// `openrecipes finalize`: a measured draft becomes a catalog recipe. The draft (a planned recipe
// from `openrecipes export`, or one filled by hand) gets its `result` from the candidate run's log
// scored under the protocol, its `correctness` from `check`'s composition (the recipe validates,
// every argument that differs from the reference is classed, the two arms' losses converge), its
// `workload.dataset` from the reference recipe (both arms train on the reference's rows), and
// `status: verified` only when every part passes (docs/tune.md). Every other line of the draft is
// kept as its author wrote it. The recipe is validated at its catalog path before it is written.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "base/problem.h"
#include "runs/correctness_check.h"
#include "runs/result_block.h"

namespace openrecipes {

/// What finalize reads. Paths are as the user named them (relative to the working folder).
struct FinalizeRequest {
  std::filesystem::path root;  ///< the catalog the recipe joins
  std::string draft;           ///< the draft recipe (status planned or unverified)
  std::string candidate_log;   ///< the measured run's training log (its steps and losses)
  std::string reference;       ///< the reference recipe (a catalog recipe with its dataset)
  std::string reference_log;   ///< the reference arm's log or loss series (CSV, JSON)
  std::string variant;  ///< "" or the file name's `-<variant>` suffix ([a-z0-9]+(-[a-z0-9]+)*)
  /// GPUs x (scheduler admission to finish) in hours, when the run's scheduler gave it
  /// (`measure`, `tune`); otherwise the result's GPU-hours come from the log's timestamps.
  std::optional<double> scheduler_gpu_hours;
};

/// The recipe finalize composed.
struct FinalizedRecipe {
  std::string text;            ///< the recipe file
  std::string catalog_path;    ///< recipes/<model>/<gpu>/<handle>-<layout>[-<variant>].yaml
  std::filesystem::path path;  ///< root / catalog_path
  std::string status;          ///< verified or unverified
  CorrectnessCheck check;      ///< each part, as `check` reports it
  ResultBlock result;          ///< the scored run
};

/// Composes the recipe. Returns nullopt with problems when the draft still holds what export
/// leaves for its author (the `your-handle` author, a stack part `not pinned`: rules
/// finalize.author, finalize.stack), when an input cannot be read (the draft or
/// the reference is not a valid recipe, the reference has no dataset, a log has no step lines or
/// states other settings than the draft, a run command does not read) or when the composed
/// recipe does not validate at its catalog path: each of those problems names the draft and the
/// draft's line when the field is one the draft gave (fix the draft), or the field finalize
/// filled and the evidence it came from.
std::optional<FinalizedRecipe> finalize_recipe(const FinalizeRequest& request, Problems& problems);

/// Writes `recipe.text` at `recipe.path` atomically (base/atomic_write.h), creating the model
/// and GPU folders. Refuses (one Problem, rule `finalize.exists`) a file already there unless
/// `replace`. Returns false with the problem when it does not write.
bool write_finalized_recipe(const FinalizedRecipe& recipe, bool replace, Problems& problems);

}  // namespace openrecipes
