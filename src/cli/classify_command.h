// `openrecipes classify CANDIDATE REFERENCE [--format text|json]`.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/cli_options.h"

namespace openrecipes::cli {

/// Adds the `classify` subcommand: reads two training commands (each a recipe's `run` field, a
/// text file holding a command, or `-` for standard input), diffs their arguments and environment
/// under canonical names, classes each difference with the catalog's rules/arguments.yaml and
/// prints a table and a verdict. A recipe's `env:` is part of its environment (its run's exports
/// win; a variable both set differently is noted). A side whose text is not text, holds no
/// command, holds several that could each be the training command, or is malformed shell is not
/// compared: each such problem is printed as FILE:LINE:COL: message and the command exits 1. When
/// other commands with flags stand beside the training command, a note names the one compared.
/// Exit 0 when the check passes (same, execution only, or every
/// same-math swap covered by a passed component test the candidate recipe lists), 1 when it fails
/// (unknown arguments, a convergence change, a missing component test) or a file cannot be read,
/// 2 on a usage error.
void add_classify_command(CLI::App& app, const GlobalOptions& global, int& exit_code);

}  // namespace openrecipes::cli
