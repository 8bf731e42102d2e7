#include "cli/validate_command.h"

#include <fmt/format.h>

#include <memory>

#include "catalog/catalog.h"
#include "cli/catalog_cache.h"
#include "cli/problem_output.h"
#include "validate/recipe_validator.h"

namespace openrecipes::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  std::string format = "text";
};

int run_validate(const GlobalOptions& global, const ValidateOptions& options) {
  std::optional<std::filesystem::path> root = resolve_root(global);
  if (!root) return kExitUsage;

  CatalogCheck check =
      check_catalog_remembering_clean(*root, options.files, std::filesystem::current_path());
  const Problems& problems = check.problems;
  std::size_t recipes = check.files_checked;

  OutputFormat format = output_format(options.format);
  print_problems(problems, format, stdout);
  if (format == OutputFormat::kText) {
    fmt::print("{} recipe{}, {} problem{}\n", recipes, recipes == 1 ? "" : "s", problems.size(),
               problems.size() == 1 ? "" : "s");
  }
  return problems.empty() ? kExitOk : kExitProblems;
}

}  // namespace

void add_validate_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand(
      "validate",
      "Check recipes against schema/recipe.schema.yaml and recompute every derived figure "
      "(cost, MFU, DP size, window); prints one line per problem");
  command->add_option("FILE", options->files,
                      "Recipe files (default: every recipe in the catalog); models.yaml, "
                      "gpus.yaml, authors.yaml, site.yaml or a data/measurements file is checked "
                      "as what it is");
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_validate(global, *options); });
}

}  // namespace openrecipes::cli
