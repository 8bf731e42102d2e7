// `openrecipes plan --model M --gpu G --gpus N [--seq-length S] [--global-batch B] [--precision P]
// [--top K] [--layout L] [--explain] [--format json]` and `openrecipes plan --calibration`: legal
// layouts that fit, ranked by predicted tokens/s per GPU, or one layout explained term by term.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `plan` subcommand.
void add_plan_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
