// `openrecipes render --loss-mask TYPE --tokenizer FILE CONVERSATION.json [--format text|json]`.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `render` subcommand: a conversation in its chat format with the supervised tokens
/// highlighted on a terminal, or ids and mask as JSON.
void add_render_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
