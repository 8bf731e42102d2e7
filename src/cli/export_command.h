// `openrecipes export RECIPE.yaml --to T [-o FILE]` and `openrecipes export --model M --gpu G
// --gpus N --layout "TP2 PP8 EP8" [...] --to T [-o FILE]`: a recipe draft for slime, Megatron-LM
// or Megatron-Bridge from a catalog recipe or from a layout (then a planned draft with the
// planner's predictions, never verified).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `export` subcommand.
void add_export_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
