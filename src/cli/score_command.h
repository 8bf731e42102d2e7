// `openrecipes score LOG --recipe RECIPE.yaml` (or `--gpus N [--global-batch B] [--row-tokens T]
// [--window A B]`): the protocol's score of a training log, printed as the recipe's `result` block.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `score` subcommand.
void add_score_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
