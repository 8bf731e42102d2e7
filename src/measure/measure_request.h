// What `openrecipes measure` is asked for besides the recipe (docs/measure.md): where the job
// runs, what it adds to the recipe's environment, what fills the recipe's placeholders and
// arrays, and which rows file it trains on.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/yaml_document.h"
#include "catalog/recipe.h"

namespace openrecipes {

/// The flags of `measure`, as given (the pre-flight, preflight.h, checks them).
struct MeasureRequest {
  std::string recipe_file;  ///< the recipe's path as the user named it
  std::string partition;    ///< `--partition`; empty for the cluster's default
  std::string account;      ///< `--account`; empty for the user's default
  std::string qos;          ///< `--qos`; empty for the account's default
  std::string reservation;  ///< `--reservation`; empty for none
  std::string time;         ///< `--time` in Slurm's forms (`90`, `1:30:00`, `1-00:00:00`)
  std::string exclude;      ///< `--exclude` node list; empty for none
  std::string nodelist;     ///< `--nodelist` node list; empty for any nodes
  std::vector<std::string> sbatch_args;  ///< `--sbatch-arg`, each one `#SBATCH` line, in order
  std::string container_image;   ///< pyxis `srun --container-image`; empty to run on the host
  std::string container_mounts;  ///< pyxis `srun --container-mounts` (SRC:DST[:FLAGS][,...])
  NamedValues env;               ///< `--env NAME=VALUE`, in order
  NamedValues set;               ///< `--set NAME=VALUE`: placeholder values (placeholders.h)
  std::string model_args_file;   ///< `--model-args-file`: a bash file sourced before the run
                                 ///< (defines arrays such as MODEL_ARGS); empty for none
  std::string rows_file;         ///< `--rows`: the rows file to check; empty to take the command's
  /// The submitting environment: sbatch passes it to the job (`--export` defaults to ALL,
  /// https://slurm.schedmd.com/sbatch.html#OPT_export), so a variable set here is set there.
  std::map<std::string, std::string> submit_env;
  /// The recipe's parsed file: lines of the run for problems, and the rows check's positions.
  /// nullptr: problems point at the file, and a rows file cannot be checked (a problem).
  const YamlDocument* document = nullptr;
  bool gpu_request = true;  ///< `--gpus-per-node`; off only on a cluster without GPUs
  std::string out_dir = "openrecipes-measure";  ///< folder for script, log and versions
  double poll_interval_s = 10;                  ///< seconds between looks at the job
};

}  // namespace openrecipes
