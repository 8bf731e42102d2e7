// `openrecipes check RECIPE.yaml [--reference REF] [--candidate-log L --reference-log R]`: the
// recipe's correctness evidence composed into its `correctness` block.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `check` subcommand.
void add_check_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
