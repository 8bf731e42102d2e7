// CLI11's usage errors worded as the commands word their own: "--flag: expected X, found Y".
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace openrecipes::cli {

/// `error`'s message in the commands' wording, "FIELD: expected X, found Y" (usage_problem in
/// problem_output.cc reads the field, expected and found back out of it), for the CLI11 errors a
/// user meets: an unknown option or a stray argument (ExtrasError), a flag's value that is not
/// true or false (ConversionError), an option given without its value (ArgumentMismatch) and a
/// value outside an option's choices (CLI::IsMember's ValidationError). Any other error's message
/// as CLI11 wrote it. `command` names the command for the help hint ("openrecipes plan").
std::string usage_message(const CLI::ParseError& error, const std::string& command);

}  // namespace openrecipes::cli
