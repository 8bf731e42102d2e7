// `openrecipes tokenize --tokenizer FILE [--format text|json] [--plain] [TEXT|-]`.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `tokenize` subcommand: token ids, pieces and count of TEXT (or standard input).
void add_tokenize_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
