// Options every subcommand shares, and how the catalog root is found from them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace openrecipes::cli {

/// Exit codes of every subcommand: 0 success, 1 problems found, 2 usage error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitUsage = 2;

/// The global options.
struct GlobalOptions {
  std::string root;  ///< --root DIR; empty means "search upward from the working directory"
  /// The command line asks for `--format json`: resolve_root reports its failure as JSON too.
  bool json_errors = false;
};

/// The catalog root from `--root`, or the nearest directory upward from the working directory
/// holding models.yaml and recipes/. On failure prints why to stderr (as text, or as the
/// one-problem JSON array of print_usage_error with `options.json_errors`) and returns nullopt.
std::optional<std::filesystem::path> resolve_root(const GlobalOptions& options);

/// Whether `text` holds only blanks (space, tab, CR, LF, VT, FF) or nothing: no flag takes that
/// as a value.
bool is_blank(const std::string& text);

/// Adds to every named option of `app` and its subcommands that takes a value a check that the
/// value is neither empty, nor blanks alone, nor a flag (`--check`, `-o`), so that `build --out
/// --check` is a usage error instead of a site written into a folder named "--check", and `--out
/// ''` is not taken as "the default". A leading '-' before a digit or a '.' (a negative number) and
/// a lone "-" (standard input) stay values. `--sbatch-arg`'s values are #SBATCH flags: it refuses
/// only an empty or blank one and its own command's flags (`--sbatch-arg --dry-run` would submit
/// for real). Positional arguments (paths, catalog names) refuse an empty or blank value, except
/// tokenize's TEXT, which may be any text. Call once, after every command is added; CLI11 then
/// reports a refused value as a validation error naming the option ("--out: expected a value, found
/// the flag '--check'") and main exits with kExitUsage.
void refuse_flags_as_values(CLI::App& app);

}  // namespace openrecipes::cli
