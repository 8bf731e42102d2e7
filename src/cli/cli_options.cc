#include "cli/cli_options.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/ascii.h"
#include "catalog/catalog.h"
#include "cli/problem_output.h"

namespace openrecipes::cli {

std::optional<std::filesystem::path> resolve_root(const GlobalOptions& options) {
  namespace fs = std::filesystem;
  const OutputFormat format = options.json_errors ? OutputFormat::kJson : OutputFormat::kText;
  std::error_code ec;
  if (!options.root.empty()) {
    fs::path root = fs::absolute(options.root, ec);
    if (!fs::is_regular_file(root / "models.yaml", ec) || !fs::is_directory(root / "recipes", ec)) {
      print_usage_error("openrecipes",
                        fmt::format("--root: expected a catalog (a folder holding models.yaml and "
                                    "recipes/), found '{}'",
                                    options.root),
                        format);
      return std::nullopt;
    }
    return root;
  }
  fs::path cwd = fs::current_path(ec);
  std::optional<fs::path> root = find_catalog_root(cwd);
  if (!root) {
    print_usage_error("openrecipes",
                      fmt::format("no catalog found in {} or above it (a directory holding "
                                  "models.yaml and recipes/); pass --root DIR",
                                  cwd.string()),
                      format);
  }
  return root;
}

bool is_blank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n\v\f") == std::string::npos;
}

namespace {

// Why `text` cannot be a positional argument's value, or "" when it can.
std::string empty_or_blank(const std::string& text) {
  if (text.empty()) return "expected a value, found an empty text";
  // Blanks alone are no value either: `--layout '   '` and `--layout ''` mean the same mistake.
  if (is_blank(text)) return "expected a value, found only blanks";
  return "";
}

// Why `text` cannot be an option's value, or "" when it can.
std::string flag_or_empty(const std::string& text) {
  if (std::string why = empty_or_blank(text); !why.empty()) return why;
  bool looks_like_flag =
      text.size() > 1 && text[0] == '-' && !(ascii_digit(text[1]) || text[1] == '.');
  if (looks_like_flag) {
    return fmt::format("expected a value, found the flag '{}'", text);
  }
  return "";
}

// A check for --sbatch-arg's values, whose #SBATCH options start with "--" like the command's
// own flags: one of those (`--sbatch-arg --dry-run` turned a dry run into a submitted job) is the
// command's flag whose value went missing, not an #SBATCH option.
CLI::Validator not_the_commands_own_flag(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  std::string command_name = command.get_name();
  return CLI::Validator(
      [names, command_name](const std::string& text) -> std::string {
        if (text.empty()) return "expected an #SBATCH option, found an empty text";
        if (is_blank(text)) return "expected an #SBATCH option, found only blanks";
        for (const std::string& name : names) {
          if (text == name || text.rfind(name + "=", 0) == 0) {
            return fmt::format(
                "expected an #SBATCH option, found {}'s own flag '{}' (a missing value, or a "
                "flag to give {} itself)",
                command_name, name, command_name);
          }
        }
        return "";
      },
      "");
}

}  // namespace

void refuse_flags_as_values(CLI::App& app) {
  // CLI11 gives an option the next word whatever it is. The --option=VALUE form reaches the same
  // check: no value of ours starts with '-' and a letter except --sbatch-arg's #SBATCH options.
  for (CLI::Option* option : app.get_options()) {
    // A positional names a file, a folder or a catalog entry: `validate ''` was read as a path
    // and reported as "no such file" with no path to show. tokenize's TEXT may be any text, empty
    // or blanks too (tokenized as such). A word starting with '-' is a flag to CLI11 already.
    if (!option->nonpositional() && option->get_type_size_max() > 0 &&
        option->get_name() != "TEXT") {
      option->check(CLI::Validator(empty_or_blank, ""));
      continue;
    }
    if (!option->nonpositional() || option->get_type_size_max() == 0 ||
        option->get_expected_min() == 0) {
      continue;
    }
    option->check(option->check_name("--sbatch-arg") ? not_the_commands_own_flag(app)
                                                     : CLI::Validator(flag_or_empty, ""));
  }
  for (CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    refuse_flags_as_values(*command);
  }
}

}  // namespace openrecipes::cli
