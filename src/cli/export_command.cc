#include "cli/export_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "cli/planner_context.h"
#include "cli/recipe_file.h"
#include "export/export_source.h"
#include "export/megatron_bridge_recipe.h"
#include "export/megatron_lm_command.h"
#include "export/planned_recipe.h"
#include "export/slime_command.h"
#include "plan/layout_prediction.h"
#include "layout/layout_rules.h"
#include "layout/layout_text.h"
#include "runs/argument_rules.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct ExportOptions {
  std::string recipe;
  std::string to;
  std::string output;
  std::string model;
  std::string gpu;
  int gpus = 0;
  std::string layout;
  std::string recompute = "none";
  std::string layer_split;
  std::string dispatcher;
  std::int64_t seq_length = kRowTokens;
  std::int64_t global_batch = kGlobalBatchRows;
  std::string precision = "bf16";
};

void print_problems(const Problems& problems) {
  for (const Problem& problem : problems) fmt::print(stderr, "{}\n", format_problem_line(problem));
}

// Writes `text` to `path` through a temporary sibling and a rename, or to stdout.
bool write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    fmt::print("{}", text);
    return true;
  }
  std::string staging = fmt::format("{}.tmp-{}", path, ::getpid());
  {
    std::ofstream out(staging, std::ios::binary);
    out << text;
    if (!out.flush()) {
      fmt::print(stderr, "openrecipes export: cannot write {}\n", path);
      std::remove(staging.c_str());
      return false;
    }
  }
  std::error_code ec;
  fs::rename(staging, path, ec);
  if (ec) {
    fmt::print(stderr, "openrecipes export: cannot write {}: {}\n", path, ec.message());
    std::remove(staging.c_str());
    return false;
  }
  return true;
}

int export_layout(const GlobalOptions& global, const ExportOptions& options, const ArgumentRules& rules,
                  std::string& text) {
  if (options.model.empty() || options.gpu.empty() || options.gpus <= 0) {
    fmt::print(stderr, "openrecipes export: a layout needs --model, --gpu and --gpus (expected all three)\n");
    return kExitUsage;
  }
  std::optional<PlannerContext> context = load_planner_context(global, "export");
  if (!context) return kExitProblems;
  const Catalog& catalog = context->catalog();
  std::optional<ModelChoice> choice = resolve_model(catalog, options.model, "export");
  if (!choice) return kExitProblems;
  const Gpu* gpu = resolve_gpu(catalog, options.gpu, "export");
  if (!gpu) return kExitProblems;
  std::optional<Precision> precision = resolve_precision(options.precision, "export");
  if (!precision) return kExitUsage;
  PlanWorkload workload{options.seq_length, options.global_batch, *precision};
  ClusterShape cluster = cluster_of(*gpu, options.gpus);
  std::optional<Layout> layout = parse_layout_arguments(
      {options.layout, options.recompute, options.layer_split, options.dispatcher}, choice->shape, cluster,
      workload.row_tokens, "export");
  if (!layout) return kExitUsage;
  if (!report_layout_violations(choice->shape, cluster, workload, *layout, "export")) return kExitProblems;
  // The training settings of the model's best measured recipe (rank_recipes' order), if any.
  const Model* model = choice->in_catalog ? catalog.find_model(choice->name) : nullptr;
  const Recipe* settings = nullptr;
  std::string settings_path;
  if (model) {
    for (const CatalogRecipe& recipe : context->checked.recipes) {
      if (recipe.recipe.status == "verified" && recipe.recipe.model == model->name &&
          (!settings || recipe.recipe.result.tokens_per_s_per_gpu > settings->result.tokens_per_s_per_gpu)) {
        settings = &recipe.recipe;
        settings_path = recipe.catalog_path;
      }
    }
  }
  LayoutPrediction prediction =
      predict_layout(choice->shape, cluster, workload, *layout, context->calibration.parameters);
  if (!prediction.memory.fits) {
    fmt::print(stderr,
               "openrecipes export: warning: {} is predicted to need {:.1f} GB per GPU, more than the {:.1f} GB usable; "
               "the draft says fits: false\n",
               layout_text(*layout), prediction.memory.memory_bytes / 1e9, prediction.memory.usable_bytes / 1e9);
  }
  ExportSource source =
      export_source_from_layout(choice->shape, model, cluster, workload, *layout, settings, settings_path, rules);
  if (options.to == "slime") {
    text = planned_recipe_yaml(source, prediction, slime_command(source));
  } else if (options.to == "megatron-lm") {
    text = planned_recipe_yaml(source, prediction, megatron_lm_command(source));
  } else {
    text = megatron_bridge_recipe(source, rules, &prediction);
  }
  return kExitOk;
}

int run_export(const GlobalOptions& global, const ExportOptions& options) {
  if (options.to != "slime" && options.to != "megatron-lm" && options.to != "megatron-bridge") {
    fmt::print(stderr, "openrecipes export: --to: expected slime, megatron-lm or megatron-bridge, found {}\n",
               options.to);
    return kExitUsage;
  }
  if (options.recipe.empty() == options.layout.empty()) {
    fmt::print(stderr, "openrecipes export: give a recipe file or --layout (expected one, found {})\n",
               options.recipe.empty() ? "neither" : "both");
    return kExitUsage;
  }
  std::error_code same_ec;
  if (!options.output.empty() && !options.recipe.empty() && fs::exists(options.output, same_ec) &&
      fs::equivalent(options.output, options.recipe, same_ec)) {
    fmt::print(stderr, "openrecipes export: -o {}: that is the recipe being exported (expected another file)\n",
               options.output);
    return kExitUsage;
  }
  std::optional<fs::path> root = resolve_root(global);
  if (!root) return kExitUsage;
  Problems problems;
  std::optional<LoadedCatalog> loaded = load_catalog(*root, problems);
  std::optional<ArgumentRules> rules = loaded ? load_argument_rules(*root, problems) : std::nullopt;
  if (!loaded || !rules) {
    print_problems(problems);
    return kExitProblems;
  }
  std::string text;
  if (!options.layout.empty()) {
    int code = export_layout(global, options, *rules, text);
    if (code != kExitOk) return code;
  } else {
    std::optional<RecipeFile> recipe = read_recipe_file(global, options.recipe, problems);
    if (!recipe) {
      print_problems(problems);
      return kExitProblems;
    }
    std::string error;
    std::optional<ExportSource> source =
        export_source_from_recipe(recipe->recipe, options.recipe, loaded->catalog, *rules, error);
    if (!source) {
      fmt::print(stderr, "openrecipes export: {}\n", error);
      return kExitProblems;
    }
    if (options.to == "slime") {
      text = slime_command(*source);
    } else if (options.to == "megatron-lm") {
      text = megatron_lm_command(*source);
    } else {
      text = megatron_bridge_recipe(*source, *rules);
    }
  }
  return write_output(options.output, text) ? kExitOk : kExitProblems;
}

}  // namespace

void add_export_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand(
      "export", "A recipe draft for slime, Megatron-LM or Megatron-Bridge from a recipe or a layout");
  command->add_option("recipe", options->recipe, "A recipe file (or give --layout)");
  command->add_option("--to", options->to, "slime, megatron-lm or megatron-bridge")->required();
  command->add_option("-o,--output", options->output, "Write to FILE (atomically) instead of stdout");
  command->add_option("--model", options->model, "A catalog model, or a Hugging Face config.json path");
  command->add_option("--gpu", options->gpu, "A GPU type of gpus.yaml (H200)");
  command->add_option("--gpus", options->gpus, "GPUs in all");
  command->add_option("--layout", options->layout, "Sizes, e.g. \"TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1\"");
  command->add_option("--recompute", options->recompute, "none, selective, full[:uniform|block[:N]]");
  command->add_option("--layer-split", options->layer_split, "FIRST,LAST layers on the first and last stage");
  command->add_option("--dispatcher", options->dispatcher, "alltoall, flex or allgather");
  command->add_option("--seq-length", options->seq_length, "Tokens per row (8192)");
  command->add_option("--global-batch", options->global_batch, "Rows per step (128)");
  command->add_option("--precision", options->precision, "bf16 or fp8");
  command->callback([options, &global, &exit_code] { exit_code = run_export(global, *options); });
}

}  // namespace openrecipes::cli
