// `openrecipes measure RECIPE.yaml --slurm`: runs the recipe once under the protocol on a Slurm
// cluster (sbatch, follow, collect) and prints its `result` and `stack` blocks.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Registers the subcommand; its exit status goes to `exit_code` (0 measured, 1 the recipe cannot
/// be measured or the job did not give a result, 2 usage).
void add_measure_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
