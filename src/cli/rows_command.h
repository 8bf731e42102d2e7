// `openrecipes rows build ...` and `openrecipes rows verify ROWS.parquet [--recipe RECIPE.yaml]`.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `rows` subcommand with `build` (the fixed SFT rows, data/README.md) and `verify`
/// (recompute a rows file's figures and check them against a recipe).
void add_rows_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
