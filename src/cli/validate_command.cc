#include "cli/validate_command.h"

#include <fmt/format.h>

#include <memory>

#include "catalog/catalog.h"
#include "validate/catalog_loader.h"
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

  Problems problems;
  std::size_t recipes = 0;
  if (std::optional<LoadedCatalog> loaded = load_catalog(*root, problems)) {
    std::vector<std::string> files = options.files;
    if (files.empty()) {
      for (const std::string& relative : list_recipe_files(*root)) {
        files.push_back((*root / relative).lexically_relative(std::filesystem::current_path()).generic_string());
      }
    }
    for (const std::string& file : files) {
      RecipeReport report = validate_recipe_file(*loaded, file);
      problems.insert(problems.end(), report.problems.begin(), report.problems.end());
      ++recipes;
    }
  }

  if (options.format == "json") {
    nlohmann::json array = nlohmann::json::array();
    for (const Problem& problem : problems) array.push_back(problem_to_json(problem));
    fmt::print("{}\n", array.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  } else {
    for (const Problem& problem : problems) fmt::print("{}\n", format_problem_line(problem));
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
  command->add_option("FILE", options->files, "Recipe files (default: every recipe in the catalog)");
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_validate(global, *options); });
}

}  // namespace openrecipes::cli
