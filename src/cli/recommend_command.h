// `openrecipes recommend --model M --gpu G --gpus N [--goal sft|pretrain|peft] [--seq-length S]
// [--format json]`: the best catalog recipe for the request, or the nearest one, resized with each
// override classed, each resizing rule checked and the memory verdict (after Megatron-Bridge's
// recipe recommender).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `recommend` subcommand.
void add_recommend_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
