// The one place the CLI prints problems: every command, as text or as JSON (`--format json`).
#pragma once

#include <cstdio>
#include <string>

#include "base/problem.h"

namespace openrecipes::cli {

/// `--format`'s value: "json" is OutputFormat::kJson, anything else text (CLI11 checks the set).
OutputFormat output_format(const std::string& flag);

/// Prints `problems` to `to` (stderr for a command's errors; stdout where the problems are the
/// command's result, as in validate) with render_problems. Returns kExitProblems (1), or kExitOk
/// (0) when there are none, so a command can `return print_problems(...)`.
int print_problems(const Problems& problems, OutputFormat format, std::FILE* to = stderr);

/// A usage error of `command` (e.g. "openrecipes plan": flags that do not say what to do) on
/// stderr: as text `command: message`, or with --format json the one-problem array every command
/// prints (rule "usage", no file; a message naming a flag, a positional argument or COMMAND,
/// "--gpus: expected X, found Y", fills field, expected and found). Returns kExitUsage (2).
int print_usage_error(const std::string& command, const std::string& message, OutputFormat format);

}  // namespace openrecipes::cli
