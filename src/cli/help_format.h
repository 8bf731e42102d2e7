// How `openrecipes --help` and each command's help read: like git's or argparse's (Megatron-LM),
// `--gpus N`, `--format {text,json}`, `(required)`, `(default: 8192)`, `(1 to 1048576)`, not
// CLI11's type annotations (`INT:INT in [1 - 1048576] REQUIRED`), and an "Examples:" footer.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace openrecipes::cli {

/// CLI11's help formatter with the option column and descriptions in words (CLI11 2.1,
/// CLI/FormatterFwd.hpp: make_option_name, make_option_opts, make_option_desc).
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter();
  /// `--name` without CLI11's flag defaults (`--no-gpu-request{false}` is `--no-gpu-request`).
  std::string make_option_name(const CLI::Option* option, bool is_positional) const override;
  /// The value's placeholder: the option_text when set, `{a,b}` for a choice, `N` for an integer,
  /// else the name in capitals (`--model MODEL`), then ` ...` when it repeats; empty for a flag
  /// or a positional.
  std::string make_option_opts(const CLI::Option* option) const override;
  /// The description, then in words what CLI11 would annotate, in one parenthesis: the range
  /// (`1 to 1024`), the default when CLI11 knows it and the text does not say it, `required`.
  std::string make_option_desc(const CLI::Option* option) const override;
};

/// Adds an "Examples:" footer to `app`'s help and each command's (and each command's command, as
/// `rows build`): a few command lines from README.md and docs/, held in help_format.cc.
void add_help_examples(CLI::App& app);

}  // namespace openrecipes::cli
