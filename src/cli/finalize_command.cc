#include "cli/finalize_command.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli/json_output.h"
#include "cli/number_options.h"
#include "cli/problem_output.h"
#include "tune/recipe_finalizer.h"

namespace openrecipes::cli {
namespace {

struct FinalizeOptions {
  FinalizeRequest request;
  bool replace = false;
  bool dry_run = false;
  std::string format = "text";
};

// Each part, the status and the path; with --dry-run these go to stderr and the recipe itself
// to stdout.
void print_finalized_text(const FinalizedRecipe& recipe, bool written) {
  std::FILE* out = written ? stdout : stderr;
  for (const CorrectnessPart& part : recipe.check.parts)
    fmt::print(out, "{:<16} {:<10} {}\n", part.name, part.status(), part.detail);
  fmt::print(out, "status: {}\n", recipe.status);
  fmt::print(out, "{} {}\n", written ? "wrote" : "would write", recipe.catalog_path);
  if (!written) fmt::print("{}", recipe.text);
}

void print_json_result(const FinalizedRecipe& recipe, bool written) {
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (const CorrectnessPart& part : recipe.check.parts)
    parts.push_back({{"name", part.name}, {"status", part.status()}, {"detail", part.detail}});
  print_json(
      nlohmann::ordered_json{{"path", recipe.catalog_path},
                             {"written", written},
                             {"status", recipe.status},
                             {"summary", recipe.check.summary()},
                             {"parts", parts},
                             {"tokens_per_s_per_gpu", recipe.result.score.tokens_per_s_per_gpu},
                             {"text", recipe.text}});
}

int run_finalize(const GlobalOptions& global, FinalizeOptions& options) {
  OutputFormat format = output_format(options.format);
  std::optional<std::filesystem::path> root = resolve_root(global);
  if (!root) return kExitUsage;
  options.request.root = *root;
  Problems problems;
  std::optional<FinalizedRecipe> recipe = finalize_recipe(options.request, problems);
  if (!recipe) return print_problems(problems, format, stderr);
  bool written = !options.dry_run && write_finalized_recipe(*recipe, options.replace, problems);
  if (!problems.empty()) return print_problems(problems, format, stderr);
  if (format == OutputFormat::kJson) {
    print_json_result(*recipe, written);
  } else {
    print_finalized_text(*recipe, written);
  }
  return recipe->status == "verified" ? kExitOk : kExitProblems;
}

}  // namespace

void add_finalize_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<FinalizeOptions>();
  FinalizeRequest& request = options->request;
  CLI::App* command = app.add_subcommand(
      "finalize",
      "Fill a measured draft's result, correctness and workload.dataset from the run's evidence "
      "and write it at its catalog path; status verified only when every correctness part passes "
      "(exit 1 otherwise)");
  command->add_option("DRAFT", request.draft, "The draft recipe (openrecipes export's)")
      ->required();
  command->add_option("--candidate-log", request.candidate_log, "The measured run's training log")
      ->required();
  command
      ->add_option("--reference", request.reference,
                   "The reference recipe; its workload.dataset is the rows both arms used")
      ->required();
  command
      ->add_option("--reference-log", request.reference_log,
                   "The reference arm's log (or loss CSV/JSON) on the same image and rows")
      ->required();
  command->add_option("--variant", request.variant,
                      "A suffix for the file name (recipes/M/G/HANDLE-LAYOUT-VARIANT.yaml)");
  command
      ->add_option("--gpu-hours", request.scheduler_gpu_hours,
                   "GPUs x (scheduler admission to finish) in hours, when Slurm gave it "
                   "(otherwise from the log's timestamps)")
      ->check(positive_real_number(1e9));
  command->add_flag("--replace", options->replace, "Overwrite a recipe already at the path");
  command->add_flag("--dry-run", options->dry_run,
                    "Compose and validate, print the recipe, write nothing");
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_finalize(global, *options); });
}

}  // namespace openrecipes::cli
