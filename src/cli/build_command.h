// `openrecipes build [--out DIR] [--check]`.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `build` subcommand: validates the catalog, renders the site and swaps it into
/// `--out` (default `<root>/site`), or with `--check` lists every stale, missing or extra file
/// and exits 1 when there is one. Sets `exit_code`.
void add_build_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
