// `openrecipes converge CANDIDATE REFERENCE`: Megatron-Bridge's validate_convergence on two
// per-step loss series, printed as the recipe's `correctness.convergence` block.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `converge` subcommand.
void add_converge_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
