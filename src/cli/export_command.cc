#include "cli/export_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "base/atomic_write.h"
#include "cli/number_options.h"
#include "cli/planner_context.h"
#include "cli/problem_output.h"
#include "cli/recipe_file.h"
#include "cli/run_setting_options.h"
#include "export/export_draft.h"
#include "export/export_source.h"
#include "layout/layout_text.h"
#include "plan/layout_request.h"
#include "runs/argument_rules.h"

namespace openrecipes::cli {
namespace {

constexpr const char* kExportCommand = "openrecipes export";

namespace fs = std::filesystem;

struct ExportOptions {
  std::string recipe;
  std::string to;
  std::string output;
  PlanArguments arguments;
  std::string format = "text";
  /// The flags that describe a layout to export (--model ... --precision): a recipe file states
  /// all of them itself, so with one they are refused rather than ignored.
  std::vector<const CLI::Option*> layout_flags;
};

// Writes `text` to `path` atomically (base/atomic_write.h), or to stdout for "" and "-". False,
// with the problem appended (file `path`, field `-o`), when it cannot.
bool write_output(const std::string& path, const std::string& text, Problems& problems) {
  if (path.empty() || path == "-") {
    fmt::print("{}", text);
    return true;
  }
  return write_text_atomically(path, text, "-o", problems);
}

// The planned draft of --layout, or nullopt with the problems (the checks plan makes).
std::optional<std::string> export_layout(const GlobalOptions& global, const ExportOptions& options,
                                         ExportTarget target, Problems& problems) {
  std::optional<PlannerContext> context =
      load_planner_context(global, "export", problems, false, options.arguments.model);
  if (!context) return std::nullopt;
  std::optional<PlanRequest> request =
      resolve_plan_request(context->catalog(), options.arguments, problems);
  if (!request) return std::nullopt;
  LayoutDraft draft = export_layout_draft(*request, context->catalog(), context->checked.recipes,
                                          context->calibration.parameters, *context->rules, target);
  if (!draft.prediction.memory.fits) {
    fmt::print(stderr,
               "openrecipes export: warning: {} is predicted to need {:.1f} GB per GPU, more than "
               "the {:.1f} GB usable; "
               "the draft says fits: false\n",
               layout_text(*request->layout), draft.prediction.memory.memory_bytes / 1e9,
               draft.prediction.memory.usable_bytes / 1e9);
  }
  return draft.text;
}

// The command of the catalog recipe file given, or nullopt with the problems.
std::optional<std::string> export_recipe(const GlobalOptions& global, const ExportOptions& options,
                                         ExportTarget target, Problems& problems) {
  std::optional<fs::path> root = resolve_root(global);
  if (!root) return std::nullopt;
  std::optional<LoadedCatalog> loaded = load_catalog(*root, problems);
  std::optional<ArgumentRules> rules = loaded ? load_argument_rules(*root, problems) : std::nullopt;
  if (!loaded || !rules) return std::nullopt;
  std::optional<RecipeFile> recipe = read_recipe_file(global, options.recipe, problems);
  if (!recipe) return std::nullopt;
  std::optional<ExportSource> source =
      export_source_from_recipe(recipe->recipe, options.recipe, loaded->catalog, *rules, problems);
  if (!source) return std::nullopt;
  return export_recipe_text(*source, target, *rules);
}

// Usage errors (exit 2): the flags do not say what to export. Prints why.
bool usage_ok(const ExportOptions& options) {
  OutputFormat format = output_format(options.format);
  if (!export_target(options.to)) {
    print_usage_error(
        kExportCommand,
        fmt::format("--to: expected slime, megatron-lm or megatron-bridge, found {}", options.to),
        format);
    return false;
  }
  if (options.recipe.empty() == options.arguments.layout.layout.empty()) {
    print_usage_error(kExportCommand,
                      fmt::format("give a recipe file or --layout (expected one, found {})",
                                  options.recipe.empty() ? "neither" : "both"),
                      format);
    return false;
  }
  if (!options.recipe.empty()) {
    std::vector<std::string> given;
    for (const CLI::Option* flag : options.layout_flags) {
      if (flag->count() > 0) given.push_back(flag->get_name());
    }
    if (!given.empty()) {
      print_usage_error(kExportCommand,
                        fmt::format("{}: a recipe file states its own model, GPUs and layout "
                                    "(expected only --to, -o and --format with a recipe, found {})",
                                    given.front(), fmt::join(given, ", ")),
                        format);
      return false;
    }
  }
  const PlanArguments& a = options.arguments;
  if (!a.layout.layout.empty() && (a.model.empty() || a.gpu.empty() || a.gpus <= 0)) {
    print_usage_error(kExportCommand,
                      "a layout needs --model, --gpu and --gpus (expected all three)", format);
    return false;
  }
  std::error_code same_ec;
  if (!options.output.empty() && !options.recipe.empty() && fs::exists(options.output, same_ec) &&
      fs::equivalent(options.output, options.recipe, same_ec)) {
    print_usage_error(
        kExportCommand,
        fmt::format("-o {}: that is the recipe being exported (expected another file)",
                    options.output),
        format);
    return false;
  }
  return true;
}

int run_export(const GlobalOptions& global, const ExportOptions& options) {
  if (!usage_ok(options) || !resolve_root(global)) return kExitUsage;
  ExportTarget target = *export_target(options.to);
  Problems problems;
  std::optional<std::string> text = options.recipe.empty()
                                        ? export_layout(global, options, target, problems)
                                        : export_recipe(global, options, target, problems);
  if (!text)
    return problems.empty() ? kExitProblems
                            : print_problems(problems, output_format(options.format));
  if (!write_output(options.output, *text, problems))
    return print_problems(problems, output_format(options.format));
  return kExitOk;
}

}  // namespace

void add_export_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand(
      "export",
      "A recipe draft for slime, Megatron-LM or Megatron-Bridge from a recipe or a layout");
  command->add_option("recipe", options->recipe, "A recipe file (or give --layout)");
  command->add_option("--to", options->to, "slime, megatron-lm or megatron-bridge")->required();
  command->add_option("-o,--output", options->output,
                      "Write to FILE (atomically) instead of stdout");
  command->add_option("--model", options->arguments.model,
                      "A catalog model, or a Hugging Face config.json path");
  command->add_option("--gpu", options->arguments.gpu, "A GPU type of gpus.yaml (H200)");
  command->add_option("--gpus", options->arguments.gpus, "GPUs in all")
      ->check(whole_number(1, 1 << 20));
  command
      ->add_option("--per-node", options->arguments.per_node,
                   "GPUs per node (default: the GPU type's, gpus.yaml)")
      ->check(whole_number(1, 1 << 10));
  command->add_option("--layout", options->arguments.layout.layout,
                      "Sizes, e.g. \"TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1\"");
  command->add_option("--recompute", options->arguments.layout.recompute,
                      "none, selective, full[:uniform|block[:N]]");
  command->add_option("--layer-split", options->arguments.layout.layer_split,
                      "FIRST,LAST layers on the first and last stage");
  command->add_option("--pipeline-layout", options->arguments.layout.pipeline_layout,
                      "Megatron-LM's --pipeline-model-parallel-layout, e.g. \"Et*3|(tt|)*29,m|L\"");
  command->add_flag("--account-for-embedding-in-pipeline-split",
                    options->arguments.layout.account_for_embedding,
                    "Count the embedding as a layer of the first stage");
  command->add_flag("--account-for-loss-in-pipeline-split",
                    options->arguments.layout.account_for_loss,
                    "Count the loss as a layer of the last stage");
  command->add_option("--dispatcher", options->arguments.layout.dispatcher,
                      "alltoall, flex or allgather");
  for (CLI::Option* setting : add_run_setting_options(
           *command, options->arguments.settings, "; on top of the settings recipe's run settings"))
    options->layout_flags.push_back(setting);
  command->add_option("--seq-length", options->arguments.seq_length, "Tokens per row (8192)")
      ->check(whole_number(1, std::int64_t{1} << 24));
  command->add_option("--global-batch", options->arguments.global_batch, "Rows per step (128)")
      ->check(whole_number(1, std::int64_t{1} << 24));
  command->add_option("--precision", options->arguments.precision,
                      "bf16 (default), fp8, or on Blackwell mxfp8 or nvfp4");
  command->add_option("--format", options->format, "Errors as text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  for (const char* name :
       {"--model", "--gpu", "--gpus", "--per-node", "--layout", "--recompute", "--layer-split",
        "--pipeline-layout", "--account-for-embedding-in-pipeline-split",
        "--account-for-loss-in-pipeline-split", "--dispatcher", "--seq-length", "--global-batch",
        "--precision"})
    options->layout_flags.push_back(command->get_option(name));
  command->callback([options, &global, &exit_code] { exit_code = run_export(global, *options); });
}

}  // namespace openrecipes::cli
