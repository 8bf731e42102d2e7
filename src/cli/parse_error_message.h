// CLI11's usage errors worded as the commands word their own: "--flag: expected X, found Y".
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace openrecipes::cli {

/// `error`'s message in the commands' wording, "FIELD: expected X, found Y" (usage_problem in
/// problem_output.cc reads the field, expected and found back out of it), for the CLI11 errors a
/// user meets: an unknown option or a stray argument (ExtrasError), a flag's value that is not
/// true or false (ConversionError), an option given without its value or too many values
/// (ArgumentMismatch) and a
/// value outside an option's choices (CLI::IsMember's ValidationError). Any other error's message
/// as CLI11 wrote it. `command` names the command for the help hint ("openrecipes plan").
/// `before_dashes`: the command line's words before "--" (all of them without one); a stray word
/// is called an unknown option only when it starts with '-' and is one of them, since every word
/// after "--" is an argument.
std::string usage_message(const CLI::ParseError& error, const std::string& command,
                          const std::vector<std::string>& before_dashes);

}  // namespace openrecipes::cli
