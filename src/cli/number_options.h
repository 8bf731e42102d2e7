// Checks of the numbers the commands' flags take, with errors that say what was expected.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>

namespace openrecipes::cli {

/// A CLI11 check that a value is a whole number in plain decimal ("8", "-1"; not "08", "0x10",
/// "1e1" or "8abc") from `low` to `high`, both included. CLI11 alone reads "010" as octal 8 and
/// "0x10" as 16, and calls "8abc" out of range. The error is "expected a whole number from 1 to
/// 1048576, found '8abc'" (CLI11 puts the flag before it, main exits with kExitUsage); the
/// description is CLI::Range's "INT in [1 - 1048576]", which --help shows as "1 to 1048576"
/// (help_format.cc). Put it before any other check of the same option.
CLI::Validator whole_number(std::int64_t low, std::int64_t high);

/// A CLI11 check that a value is a finite decimal number ("0.5", ".5", "1e-3"; not "0x1p-1",
/// "inf", "nan" or "0.5x": strtod reads the first three, and NaN passes every range check) from
/// `low` to `high`, both included; `high` may be infinity (no upper bound). The error is
/// "expected a number from 0 to 0.9, found '2'" (or "of at least 0"); the description, which
/// --help shows as "0 to 0.9" or "at least 0" (help_format.cc), is "FLOAT in [0 - 0.9]" or
/// "FLOAT at least 0".
CLI::Validator real_number(double low, double high);

/// A CLI11 check that a value is a finite decimal number above 0 and at most `high` (infinity: no
/// upper bound), as real_number reads it: "expected a number above 0 [and at most 1000000000],
/// found '0'"; --help shows "above 0 [and at most 1000000000]".
CLI::Validator positive_real_number(double high = std::numeric_limits<double>::infinity());

}  // namespace openrecipes::cli
