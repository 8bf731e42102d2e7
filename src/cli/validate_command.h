// `openrecipes validate [FILE...] [--format text|json]`.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `validate` subcommand to `app`; when run it sets `exit_code` (0 valid, 1 problems,
/// 2 usage error).
void add_validate_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
