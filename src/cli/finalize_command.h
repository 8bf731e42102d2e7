// `openrecipes finalize DRAFT.yaml --candidate-log L --reference REF.yaml --reference-log R`:
// a measured draft filled from its evidence (tune/recipe_finalizer.h) and written at its path in
// the catalog.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `finalize` subcommand.
void add_finalize_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
