// `openrecipes active-params PATH|MODEL [--format text|json]`.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `active-params` subcommand: counts N from a config.json (or a folder holding one),
/// or from a catalog model's config (models/<slug>/config.json), and prints the breakdown.
void add_active_params_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
