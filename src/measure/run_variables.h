// The variables a recipe's `run` reads but does not set itself, as runs/shell_reader.h reads the
// text: `$HF_CKPT`, `"${TORCH_DIST}"`, `${MODEL_ARGS[@]}`. `openrecipes measure` refuses a run
// that reads one nothing sets (docs/measure.md, "Variables"): the job would start with an empty
// checkpoint path or an empty argument list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace openrecipes {

/// One variable the run reads and does not define.
struct RunVariable {
  std::string name;    ///< `HF_CKPT`
  int line = 0;        ///< 1-based line of the run text where it is first read
  bool array = false;  ///< read as an array (`${MODEL_ARGS[@]}`): only a sourced file can set it
};

/// The variables the simple commands of `run` read in their words (the program and its
/// arguments) that the text leaves unexpanded because it never defines them, and the arrays it
/// expands without defining them (TrainingCommand::external_arrays), once per name, in order of
/// first line. Special parameters (`$1`, `$@`, `$?`) are not variables. Exported values and
/// command substitutions inside them (`NCCL_NVLS_ENABLE=$(...)`) are not read here.
std::vector<RunVariable> variables_read(std::string_view run);

/// Whether the job has `name` without anyone setting it: Slurm's `SLURM_*` variables
/// (https://slurm.schedmd.com/sbatch.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES) and bash's own
/// (HOME, PATH, PWD, USER, HOSTNAME, RANDOM, ...; `BASH_*`).
bool set_in_every_job(std::string_view name);

}  // namespace openrecipes
