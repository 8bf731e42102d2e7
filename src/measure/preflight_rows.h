// The pre-flight's rows check (preflight.h): the rows file the job trains on exists and matches
// the recipe's workload, by the rows layer's own check (`openrecipes rows verify --recipe`).
#pragma once

#include <optional>
#include <string>

#include "catalog/recipe.h"
#include "measure/measure_request.h"

namespace openrecipes {

struct MeasurePreflight;

/// The local path of the rows file the filled `run` trains on: the value of its training
/// command's `--prompt-data` (slime) or `--data-path` (Megatron-LM), a `$NAME` or `${NAME}`
/// value looked up in --env, then the recipe's env, then the submitting environment. nullopt
/// when the command names none, or names one that cannot be resolved here (another
/// expansion, or a URL such as `hf://...`).
std::optional<std::string> rows_path_of_run(const Recipe& recipe, const MeasureRequest& request,
                                            const std::string& run);

/// Checks the rows file (request.rows_file, else rows_path_of_run) into `preflight`: a problem
/// (rule measure.rows) when it does not exist or when --rows and the command name different
/// files; the rows layer's problems (rule `file`, `rows.*`) when it is not a valid rows file or
/// does not match the recipe; a note saying what was checked, or that no rows file was named.
/// Throws IoError when the file's bytes cannot be read, BugError when request.document is null.
void check_rows_file(const Recipe& recipe, const MeasureRequest& request,
                     MeasurePreflight& preflight);

}  // namespace openrecipes
