// `openrecipes serve [--port N] [--host H] [--dir DIR] [--quiet]`.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `serve` subcommand: serves the built site (default `<root>/site`) on 127.0.0.1:8000
/// until SIGINT or SIGTERM, logging each request on stderr unless `--quiet`. Another host only
/// when `--host` asks. Sets `exit_code`.
void add_serve_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
