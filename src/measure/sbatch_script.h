// The batch script `openrecipes measure` submits, written from a recipe: one job of
// gpu.count / gpu.per_node nodes with the recipe's GPUs per node, the recipe's environment, a
// first step that dumps the stack's versions beside the log, then the recipe's `run` with the
// protocol's step count. Pure: text in, text out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/protocol.h"
#include "catalog/recipe.h"
#include "measure/step_count.h"

namespace openrecipes {

/// Where the job runs and what it adds to the recipe. Paths are absolute: the job's working
/// folder need not be the submitter's.
struct SbatchOptions {
  std::string recipe_name;  ///< the recipe's file name, for the script's header comment
  std::string recipe_file;  ///< the recipe's path as the user named it, for problems
  std::string
      out_dir;  ///< folder for the log (`slurm-JOBID.log`) and versions (`versions-JOBID.txt`)
  std::string partition;    ///< `--partition`; empty for the cluster's default
  std::string account;      ///< `--account`; empty for the user's default
  std::string qos;          ///< `--qos`; empty for the account's default
  std::string reservation;  ///< `--reservation`; empty for none
  std::string time;         ///< `--time` limit in Slurm's forms; empty for the partition's
  std::string exclude;      ///< `--exclude` node list; empty for none
  std::string nodelist;     ///< `--nodelist` node list; empty for any
  std::vector<std::string> sbatch_args;  ///< more `#SBATCH` lines, each as given
  std::string container_image;   ///< pyxis `srun --container-image`; empty to run on the host
  std::string container_mounts;  ///< pyxis `srun --container-mounts`; empty for none
  std::string model_args_file;   ///< absolute path of a bash file the run sources first; or empty
  NamedValues env;               ///< `--env NAME=VALUE`, set after (so over) the recipe's env
  bool gpu_request =
      true;  ///< `--gpus-per-node`; off only where the cluster has no GPUs (the tests)
  int steps = kProtocolSteps;
};

/// The script and what it changed.
struct SbatchScript {
  std::string text;
  int nodes = 0;
  ForcedStepCount step_count;
  std::vector<std::string> notes;  ///< what the pre-flight checked or could not (preflight.h)
};

/// The log path Slurm writes for `job_id` under `out_dir` (the script's `--output`).
std::string job_log_path(const std::string& out_dir, long long job_id);
/// The versions file the job's first step writes under `out_dir`.
std::string job_versions_path(const std::string& out_dir, long long job_id);

/// `text` as one shell word that the shell reads back as exactly `text` (single quotes).
std::string shell_quote(const std::string& text);

/// Writes the script. Values on `#SBATCH` lines are written as given (sbatch reads them, not the
/// shell; the pre-flight, preflight.h, refuses blanks, quotes and control characters in them);
/// every value on a shell line (--env, the image, the mounts, the model-args file, the out
/// folder) is single-quoted (shell_quote). Recipe env values holding `$` are shell expressions, as
/// the recipe's own `run` writes them (`$([ ... ] && echo 1 || echo 0)`), and are written as they
/// are; every other value, and every --env value, is single-quoted. The run command runs once, on
/// the job's first node (inside the image when one is given); its launcher (slime's Ray, torchrun)
/// spreads it over the nodes. Returns nullopt with problems (file: options.recipe_file, rule
/// `measure.*`) when gpu.count is not a multiple of gpu.per_node, the --out folder holds blanks or
/// quotes, an --env name is not a shell name, the run holds the script's end marker, or
/// force_step_count refuses the command.
std::optional<SbatchScript> write_sbatch_script(const Recipe& recipe, const SbatchOptions& options,
                                                Problems& problems);

}  // namespace openrecipes
