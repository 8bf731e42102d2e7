// `openrecipes measure`'s pre-flight (docs/measure.md): everything that would make the job fail
// after its allocation is granted, or write what the user did not mean into the batch script,
// found before anything is written or submitted, every problem at once. It runs for --dry-run
// too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/problem.h"
#include "base/yaml_document.h"
#include "catalog/recipe.h"
#include "measure/measure_request.h"

namespace openrecipes {

/// The pre-flight's outcome.
struct MeasurePreflight {
  std::string run;                 ///< the recipe's run with its placeholders filled (--set)
  Problems problems;               ///< every refusal; empty when the job may be submitted
  std::vector<std::string> notes;  ///< what it checked or could not, one sentence each
};

/// Checks the flags alone (file: request.recipe_file, field: the flag, rule `measure.*`):
///   - measure.control: a control character or newline in any flag's value (every one of
///     MeasureRequest's strings, --env and --set names and values, each --sbatch-arg), and in the
///     recipe's env values, which are written into the script;
///   - measure.sbatch_value: a blank, quote or backslash in a value written on an `#SBATCH`
///     line (partition, account, qos, reservation, time, exclude, nodelist, --sbatch-arg), which
///     sbatch, not the shell, reads;
///   - measure.time: --time not in one of Slurm's forms
///   (https://slurm.schedmd.com/sbatch.html#OPT_time);
///   - measure.sbatch_arg: an --sbatch-arg that is not an option, or sets what measure sets
///     itself (--nodes, --output, --error: measure reads the log where it put it);
///   - measure.container_mounts: --container-mounts without --container-image (pyxis mounts
///     into a container only, NVIDIA/pyxis README.md).
void check_measure_flags(const Recipe& recipe, const MeasureRequest& request, Problems& problems);

/// The whole pre-flight: check_measure_flags, then on the recipe's run
///   - measure.placeholder: each unfilled `<...>` placeholder (placeholders.h), at its line of
///     the file; measure.set: a --set that names no placeholder of the run, or whose value the
///     placeholder cannot take;
///   - measure.variable / measure.array: each variable the run reads (run_variables.h) that
///     neither the run, the recipe's env, --env, --model-args-file nor the submitting environment
///     sets, at its line (an array only a --model-args-file can set);
///   - measure.model_args_file: a --model-args-file that cannot be read;
///   - measure.rows and the rows layer's `rows.*` rules: the rows file (--rows, else the local
///     path the command's --prompt-data or --data-path names, its variable looked up) missing,
///     not a rows file, or not matching the recipe's workload (check_rows_against_recipe, as
///     `openrecipes rows verify --recipe`).
/// It notes (not refuses) a slime run across several nodes without a RAY_ADDRESS (--env, the
/// recipe's env or the submitting environment): the batch script starts no Ray cluster.
/// Throws IoError only when a rows file that exists cannot be read.
MeasurePreflight preflight_measure(const Recipe& recipe, const MeasureRequest& request);

/// `text` with each control character written as `\n`, `\t`, `\r` or `\xNN`, for messages.
std::string escape_controls(std::string_view text);

/// The file line of the run text's line 1: the line after `run: |` in a literal block, 0 when
/// the run is folded or quoted (its lines are not the file's) or the document is null.
int run_first_line(const YamlDocument* document);

}  // namespace openrecipes
