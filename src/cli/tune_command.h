// `openrecipes tune propose`: the proposal step of tuning (tune/layout_proposals.h) as a command,
// so that a tuner of someone else's can call it between its own runs.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `tune` command and its `propose` subcommand.
void add_tune_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
