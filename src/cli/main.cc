// openrecipes: the catalog's toolchain in one binary. Each subcommand is a thin adapter over the
// library in src/; see README.md.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/input_error.h"
#include "cli/active_params_command.h"
#include "cli/build_command.h"
#include "cli/check_command.h"
#include "cli/classify_command.h"
#include "cli/cli_options.h"
#include "cli/converge_command.h"
#include "cli/export_command.h"
#include "cli/finalize_command.h"
#include "cli/help_format.h"
#include "cli/measure_command.h"
#include "cli/parse_error_message.h"
#include "cli/plan_command.h"
#include "cli/problem_output.h"
#include "cli/recommend_command.h"
#include "cli/render_command.h"
#include "cli/rows_command.h"
#include "cli/score_command.h"
#include "cli/serve_command.h"
#include "cli/tokenize_command.h"
#include "cli/tune_command.h"
#include "cli/validate_command.h"
#include "cli/version.h"

namespace {

// "openrecipes" and the subcommands the command line named ("openrecipes rows build").
std::string command_path(const CLI::App& app) {
  std::string path = "openrecipes";
  const CLI::App* level = &app;
  while (true) {
    std::vector<CLI::App*> parsed = level->get_subcommands();
    if (parsed.empty()) return path;
    level = parsed.front();
    path += " " + level->get_name();
  }
}

// Whether the command line asks for JSON output (`--format json` or `--format=json`), so that an
// error caught here is printed the way the command prints its own.
bool json_requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") return false;  // what follows are arguments, not options
    if (word == "--format=json" ||
        (word == "--format" && i + 1 < argc && std::string(argv[i + 1]) == "json")) {
      return true;
    }
  }
  return false;
}

// The command line's words before "--" (what follows it are arguments), or all of them.
std::vector<std::string> words_before_dashes(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) words.emplace_back(argv[i]);
  return words;
}

// The command names of `level`, "a, b, c".
std::string command_names(const CLI::App& level) {
  std::string names;
  for (const CLI::App* command : level.get_subcommands([](const CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + command->get_name();
  }
  return names;
}

// Names an unknown command (or an unknown subcommand of one that has them, like `rows`), a
// missing one, or an option given before the command it belongs to (`openrecipes --format json
// validate` read "json" as the command) on stderr, as "COMMAND: expected one of ..., found X",
// instead of CLI11's "A subcommand is required"; false when it printed one.
bool names_known_commands(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  auto refuse = [&](const std::string& found) {
    std::string parent = level == &app ? "openrecipes" : "openrecipes " + level->get_name();
    openrecipes::cli::print_usage_error(
        parent,
        fmt::format("COMMAND: expected one of {} (see {} --help), found {}", command_names(*level),
                    parent, found),
        json_requested(argc, argv) ? openrecipes::OutputFormat::kJson
                                   : openrecipes::OutputFormat::kText);
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--help" || word == "-h" || word == "--version") return true;  // CLI11 answers
    // A command whose subcommand is optional (`tune`) has options of its own before it.
    const bool needs_command = level->get_require_subcommand_min() > 0;
    if (word.starts_with("-")) {
      if (!needs_command) continue;
      const CLI::Option* own = level->get_option_no_throw(word.substr(0, word.find('=')));
      if (own == nullptr) return refuse(fmt::format("'{}' before it", word));
      if (own->get_type_size_max() > 0 && word.find('=') == std::string::npos) ++i;  // its value
      continue;
    }
    auto named = level->get_subcommands(
        [&](const CLI::App* command) { return command->get_name() == word; });
    if (named.empty() && !needs_command) break;  // an option's value or an argument
    if (named.empty()) return refuse(fmt::format("'{}'", word));
    level = named.front();
    if (level->get_subcommands([](const CLI::App*) { return true; }).empty()) return true;
  }
  if (level->get_require_subcommand_min() > 0) return refuse("none");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace openrecipes::cli;
  CLI::App app{"openrecipes: a catalog of measured, correctness-checked LLM training recipes"};
  // Before the commands: each takes its formatter from the app when it is added.
  app.formatter(std::make_shared<HelpFormatter>());
  app.set_version_flag("--version", version_line(), "Print the version and exit");
  app.require_subcommand(1);
  GlobalOptions global;
  global.json_errors = json_requested(argc, argv);
  app.add_option(
      "--root", global.root,
      "Catalog root (default: nearest directory upward holding models.yaml and recipes/)");
  int exit_code = kExitOk;
  add_validate_command(app, global, exit_code);
  add_build_command(app, global, exit_code);
  add_serve_command(app, global, exit_code);
  add_active_params_command(app, global, exit_code);
  add_tokenize_command(app, global, exit_code);
  add_render_command(app, global, exit_code);
  add_rows_command(app, global, exit_code);
  add_classify_command(app, global, exit_code);
  add_score_command(app, global, exit_code);
  add_measure_command(app, global, exit_code);
  add_converge_command(app, global, exit_code);
  add_check_command(app, global, exit_code);
  add_plan_command(app, global, exit_code);
  add_recommend_command(app, global, exit_code);
  add_export_command(app, global, exit_code);
  add_finalize_command(app, global, exit_code);
  add_tune_command(app, global, exit_code);
  add_help_examples(app);
  refuse_flags_as_values(app);
  if (!names_known_commands(app, argc, argv)) return kExitUsage;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A usage error (an unknown flag, a value out of range): with --format json, the one-problem
    // array every command prints.
    const std::string command = command_path(app);
    const std::string message =
        openrecipes::cli::usage_message(e, command, words_before_dashes(argc, argv));
    if (json_requested(argc, argv)) {
      return print_usage_error(command, message, openrecipes::OutputFormat::kJson);
    }
    std::fprintf(stderr, "%s: %s\nRun with --help for more information.\n", command.c_str(),
                 message.c_str());
    return kExitUsage;
  } catch (const openrecipes::InputError& e) {
    // Bad input found deep in a computation (a tokenizer's pattern PCRE2 gives up on): printed as
    // the command prints its own problems.
    return print_problems({e.problem()}, json_requested(argc, argv)
                                             ? openrecipes::OutputFormat::kJson
                                             : openrecipes::OutputFormat::kText);
  } catch (const openrecipes::IoError& e) {
    // The one place errors end up (docs/architecture.md, "Errors"): bad input came back from the
    // library as problems, which the command printed; what reaches here is I/O or a bug. With
    // --format json the I/O failure is one problem of the JSON array, as the command's own are.
    if (json_requested(argc, argv)) {
      return print_problems({{e.path(), {}, "", "io", e.what(), "", ""}},
                            openrecipes::OutputFormat::kJson);
    }
    std::fprintf(stderr, "%s: %s\n", command_path(app).c_str(), e.what());
    return kExitProblems;
  } catch (const std::exception& e) {
    // fmt::print throws when a write to standard output fails (a full disk, a closed stream):
    // the output's failure, reported as below, not a bug.
    if (std::ferror(stdout)) {
      std::fprintf(stderr, "openrecipes: could not write the output (standard output): %s\n",
                   e.what());
      return kExitProblems;
    }
    std::fprintf(stderr, "openrecipes: internal error: %s (please report it)\n", e.what());
    return kExitProblems;
  }
  // Output that did not reach its destination (a full disk, a closed pipe) is a failure, not a
  // success with the result lost.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "openrecipes: could not write the output (standard output): %s\n",
                 std::strerror(errno));
    return kExitProblems;
  }
  return exit_code;
}
