#include "cli/measure_command.h"

#include <fmt/format.h>

#include <csignal>
#include <map>
#include <memory>

#include "base/error.h"
#include "cli/json_output.h"
#include "cli/problem_output.h"
#include "cli/progress_line.h"
#include "cli/recipe_file.h"
#include "cli/slurm_job_flags.h"
#include "measure/measure_run.h"
#include "measure/placeholders.h"
#include "measure/slurm_client.h"

namespace openrecipes::cli {
namespace {

constexpr const char* kMeasureCommand = "openrecipes measure";

struct MeasureOptions {
  std::string recipe;
  bool slurm = false;
  SlurmJobFlags job;
  bool dry_run = false;
  std::string out = "openrecipes-measure";
  std::string format = "text";
};

// --dry-run: the script on standard output (text), or one JSON object with the script as a
// field; the pre-flight's notes on standard error (text) or in the object.
int print_dry_run(const SbatchScript& script, OutputFormat format) {
  if (format == OutputFormat::kJson) {
    nlohmann::ordered_json out = {
        {"script", script.text},
        {"nodes", script.nodes},
        {"step_count",
         {{"flag", script.step_count.flag}, {"recipe_value", script.step_count.recipe_value}}},
        {"notes", script.notes}};
    print_json(out);
    return kExitOk;
  }
  for (const std::string& note : script.notes)
    fmt::print(stderr, "{}: {}\n", kMeasureCommand, note);
  fmt::print("{}", script.text);
  return kExitOk;
}

// Runs the workflow on the real Slurm and prints the blocks (text) or the run (JSON).
int measure_on_slurm(const RecipeFile& recipe, const MeasureRequest& request, OutputFormat format) {
  SlurmClient slurm;
  StopOnSignal stop_on_signal;
  TerminalObserver observer(kMeasureCommand);
  Problems problems;
  // Slurm's or the job's failures are IoErrors, printed by main as `openrecipes measure: ...`.
  std::optional<MeasuredRun> run =
      measure_recipe(recipe.recipe, recipe.catalog.catalog, request, slurm, observer, problems);
  if (!run) return problems.empty() ? kExitProblems : print_problems(problems, format);
  if (format == OutputFormat::kJson) {
    print_json(measured_run_json(*run));
  } else {
    fmt::print("{}", run->text);
  }
  return kExitOk;
}

int run_measure(const GlobalOptions& global, const MeasureOptions& options) {
  OutputFormat format = output_format(options.format);
  if (!options.slurm)
    return print_usage_error(kMeasureCommand,
                             "give --slurm (Slurm is the scheduler measure runs on)", format);
  std::optional<MeasureRequest> request =
      measure_request_from(options.job, kMeasureCommand, format);
  if (!request) return kExitUsage;
  request->recipe_file = options.recipe;
  request->out_dir = options.out;
  Problems problems;
  std::optional<RecipeFile> recipe = read_recipe_file(global, options.recipe, problems);
  if (!recipe) return problems.empty() ? kExitUsage : print_problems(problems, format);
  request->document = &recipe->document;
  if (!options.dry_run) return measure_on_slurm(*recipe, *request, format);
  std::optional<SbatchScript> script = measure_script(recipe->recipe, *request, problems);
  if (!script) return print_problems(problems, format);
  return print_dry_run(*script, format);
}

}  // namespace

void add_measure_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<MeasureOptions>();
  CLI::App* command = app.add_subcommand("measure",
                                         "Run a recipe once under the protocol on Slurm (20 steps, "
                                         "scored over 5-19) and print its result and "
                                         "stack blocks");
  command->footer(
      "First, also for --dry-run, a pre-flight refuses, every problem at once: unfilled <...> "
      "placeholders (--set), variables the run reads that nothing sets (--env, the submitting "
      "environment; arrays through --model-args-file), a rows file that is missing or fails "
      "rows verify --recipe (--rows), and control characters in any flag (docs/measure.md).");
  command->add_option("RECIPE", options->recipe, "The recipe to run")->required();
  command->add_flag("--slurm", options->slurm, "Run it as a Slurm batch job (sbatch)");
  add_slurm_options(*command, options->job);
  add_run_options(*command, options->job);
  command->add_option(
      "--out", options->out,
      "Folder for the script, the log and the versions (default openrecipes-measure)");
  command->add_flag("--dry-run", options->dry_run,
                    "Run the pre-flight and print the batch script; submit nothing");
  command
      ->add_option("--format", options->format,
                   "Output format of the result, the --dry-run script and errors")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_measure(global, *options); });
}

}  // namespace openrecipes::cli
