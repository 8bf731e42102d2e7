#include "cli/score_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "cli/json_output.h"
#include "cli/number_options.h"
#include "cli/problem_output.h"
#include "cli/recipe_file.h"
#include "layout/layout_rules.h"
#include "plan/catalog_measurements.h"
#include "plan/memory_model.h"
#include "runs/result_block.h"
#include "runs/settings_check.h"

namespace openrecipes::cli {
namespace {

struct ScoreOptions {
  std::string log;
  std::string recipe;
  std::optional<int> gpus;
  std::optional<std::int64_t> global_batch;
  std::optional<std::int64_t> row_tokens;
  std::vector<int> window;
  std::string gpu;
  std::string model;
  std::string format = "text";
};

// What the score needs besides the log: the setup (from the recipe, then the flags) and the
// catalog's figures.
struct ScoreInputs {
  ResultBlock block;
  std::optional<RecipeFile> recipe;
  std::optional<Model> model;  ///< --model's or the recipe's model, when the catalog was read
};

// The recipe or catalog's figures into `inputs`. Returns an exit code when the command must stop:
// 1 with `problems` (a recipe or catalog that is not valid, a recipe's GPU or model not in the
// catalog), 2 for a usage error (said on stderr).
std::optional<int> read_score_inputs(const GlobalOptions& global, const ScoreOptions& options,
                                     ScoreInputs& inputs, Problems& problems) {
  ResultBlock& block = inputs.block;
  const Catalog* catalog = nullptr;
  std::optional<LoadedCatalog> loaded;
  if (!options.recipe.empty()) {
    inputs.recipe = read_recipe_file(global, options.recipe, problems);
    if (!inputs.recipe) return problems.empty() ? kExitUsage : kExitProblems;
    const Recipe& r = inputs.recipe->recipe;
    block.setup = {r.gpu.count, r.workload.global_batch, r.workload.row_tokens,
                   r.result.window_first, r.result.window_last};
    catalog = &inputs.recipe->catalog.catalog;
  } else if (!options.gpu.empty() || !options.model.empty()) {
    std::optional<std::filesystem::path> root = resolve_root(global);
    if (!root) return kExitUsage;
    loaded = load_catalog(*root, problems);
    if (!loaded) return kExitProblems;
    catalog = &loaded->catalog;
  }
  if (options.gpus) block.setup.gpus = *options.gpus;
  if (options.global_batch) block.setup.global_batch = *options.global_batch;
  if (options.row_tokens) block.setup.row_tokens = *options.row_tokens;
  if (options.window.size() == 2)
    block.setup.window_first = options.window[0], block.setup.window_last = options.window[1];
  if (options.window.size() == 2 && options.window[1] <= options.window[0]) {
    return print_usage_error(
        "openrecipes score",
        fmt::format("--window {} {}: expected first < last", options.window[0], options.window[1]),
        output_format(options.format));
  }
  if (block.setup.gpus < 1) {
    return print_usage_error("openrecipes score", "give --recipe RECIPE.yaml or --gpus N",
                             output_format(options.format));
  }
  if (!catalog) return std::nullopt;
  const RecipeFile* recipe = inputs.recipe ? &*inputs.recipe : nullptr;
  std::string gpu_type = !options.gpu.empty() ? options.gpu : recipe ? recipe->recipe.gpu.type : "";
  std::string model_name = !options.model.empty() ? options.model
                           : recipe               ? recipe->recipe.model
                                                  : "";
  Problems unknown;
  if (add_catalog_figures(block, *catalog, gpu_type, model_name, unknown)) {
    if (const Model* model = catalog->find_model(model_name)) inputs.model = *model;
    return std::nullopt;
  }
  Problem& problem = unknown.front();
  bool from_flag = problem.field == "gpu.type" ? !options.gpu.empty() : !options.model.empty();
  if (from_flag) {
    return print_usage_error(
        "openrecipes score",
        fmt::format("--{} {}: not in {}.yaml{}", problem.field == "gpu.type" ? "gpu" : "model",
                    problem.field == "gpu.type" ? gpu_type : model_name,
                    problem.field == "gpu.type" ? "gpus" : "models",
                    problem.expected.empty() ? "" : " (expected " + problem.expected + ")"),
        output_format(options.format));
  }
  problem.file = options.recipe;
  problem.position = recipe->document.position_of(problem.field);
  problems.push_back(problem);
  return kExitProblems;
}

// "the recipe's FIELD (FILE:LINE:COL)".
std::string recipe_source(const ScoreOptions& options, const RecipeFile& recipe,
                          const std::string& field) {
  SourcePosition at = recipe.document.position_of(field);
  return fmt::format("the recipe's {} ({}:{}:{})", field, options.recipe, at.line, at.column);
}

// What the run is said to be: each term from its flag, else the recipe, else (batch and row
// tokens, which the score uses) the protocol's value; the model's sizes from models.yaml.
StatedSettings stated_settings(const ScoreOptions& options, const ScoreInputs& inputs) {
  StatedSettings stated;
  const RecipeFile* recipe = inputs.recipe ? &*inputs.recipe : nullptr;
  auto from = [&](const char* flag, bool given, const char* field, const char* protocol) {
    if (given) return std::string(flag);
    if (recipe) return recipe_source(options, *recipe, field);
    return std::string(protocol);
  };
  const ScoreSetup& setup = inputs.block.setup;
  stated.world_size =
      StatedValue{setup.gpus, from("--gpus", options.gpus.has_value(), "gpu.count", "--gpus")};
  stated.global_batch =
      StatedValue{setup.global_batch,
                  from("--global-batch", options.global_batch.has_value(), "workload.global_batch",
                       "the protocol's global batch (give --global-batch for another)")};
  stated.seq_length = StatedValue{
      setup.row_tokens, from("--row-tokens", options.row_tokens.has_value(), "workload.row_tokens",
                             "the protocol's row tokens (give --row-tokens for another)")};
  if (recipe) {
    stated.micro_batch = StatedValue{recipe->recipe.layout.rows_per_microbatch,
                                     recipe_source(options, *recipe, "layout.rows_per_microbatch")};
  }
  if (inputs.model) {
    const ModelShape& shape = inputs.model->shape;
    std::string source = fmt::format("models.yaml's {} (models/{}/config.json)", inputs.model->name,
                                     inputs.model->slug);
    stated.hidden_size = StatedValue{shape.hidden_size, source};
    stated.num_layers = StatedValue{shape.layers, source};
    stated.num_experts = StatedValue{shape.experts, source};
  }
  return stated;
}

// The planner's memory estimate for the recipe's layout, or why there is none.
struct PlannerMemory {
  std::optional<MemoryEstimate> estimate;
  std::string layout;   ///< the recipe's layout label
  std::string why_not;  ///< when there is no estimate
};

// The memory model (plan/memory_model.h) on the recipe's planner inputs, read as the calibration
// reads them (recipe_planner_inputs: its run settings, the dispatcher defaulted).
PlannerMemory planner_memory(const RecipeFile& file) {
  const Recipe& r = file.recipe;
  PlannerMemory planner{{}, r.layout.label, ""};
  const Model* model = file.catalog.catalog.find_model(r.model);
  const Gpu* gpu = file.catalog.catalog.find_gpu(r.gpu.type);
  if (!model || !gpu) {
    planner.why_not = "the recipe's model or GPU type is not in the catalog";
    return planner;
  }
  const MeasuredLayout in = recipe_planner_inputs(r, *model, *gpu);
  std::vector<LayoutViolation> broken = check_layout(in.model, in.cluster, in.workload, in.layout);
  if (!broken.empty()) {
    planner.why_not = fmt::format("the planner does not model this layout ({}: {})",
                                  broken.front().field, broken.front().message);
    return planner;
  }
  planner.estimate = estimate_memory(in.model, in.cluster, in.workload, in.layout);
  return planner;
}

std::string planner_comment(const std::optional<PlannerMemory>& planner,
                            const std::optional<MemoryPeak>& peak) {
  if (!planner) return "";
  if (!planner->estimate)
    return fmt::format("# planner's memory estimate: none; {}\n", planner->why_not);
  const MemoryEstimate& m = *planner->estimate;
  std::string out = fmt::format(
      "# planner's memory estimate for {}: {:.2f} GB per GPU on stage {} of {:.2f} GB usable "
      "({:.2f} GB less headroom): {}\n",
      planner->layout, m.memory_bytes / 1e9, m.peak.stage, m.usable_bytes / 1e9,
      m.capacity_bytes / 1e9, m.fits ? "fits" : "does not fit");
  // Side by side with what the run allocated, so that a gap is read, not inferred; what the
  // estimate does not count is named (plan/memory_model.h).
  if (peak && peak->max_allocated_gb > 0 && m.memory_bytes > 0) {
    out += fmt::format(
        "# the log's max allocated ({:.2f} GB) is {:+.1f}% from the estimate, which leaves out: "
        "{}\n",
        peak->max_allocated_gb, 100 * (peak->max_allocated_gb / (m.memory_bytes / 1e9) - 1),
        fmt::join(memory_left_out(), "; "));
  }
  return out;
}

nlohmann::ordered_json planner_json(const std::optional<PlannerMemory>& planner) {
  if (!planner) return nullptr;
  if (!planner->estimate)
    return {{"layout", planner->layout}, {"estimate_gb", nullptr}, {"note", planner->why_not}};
  const MemoryEstimate& m = *planner->estimate;
  return {{"layout", planner->layout},
          {"estimate_gb", m.memory_bytes / 1e9},
          {"stage", m.peak.stage},
          {"usable_gb", m.usable_bytes / 1e9},
          {"capacity_gb", m.capacity_bytes / 1e9},
          {"fits", m.fits},
          {"left_out", memory_left_out()}};
}

// What score prints beside the result: the settings cross-check and the memory figures.
struct ScoreEvidence {
  SettingsCheck settings;
  std::optional<MemoryPeak> peak;
  std::optional<PlannerMemory> planner;  ///< with --recipe
};

// Prints the scored result as text or JSON, with where the recipe disagrees with the log.
void print_score(const ScoreOptions& options, const TrainingLog& log, const ResultBlock& block,
                 const ScoreEvidence& evidence, const Problems& disagreements) {
  if (options.format == "json") {
    nlohmann::ordered_json out = {
        {"log", options.log},
        {"format", log_format_name(log.format)},
        {"step_time_source", log.step_time_source},
        {"settings", settings_check_json(evidence.settings)},
        {"memory",
         {{"peak", memory_peak_json(evidence.peak)}, {"planner", planner_json(evidence.planner)}}},
        {"result", result_block_json(block)},
        {"problems", nlohmann::json::array()}};
    for (const Problem& problem : disagreements)
      out["problems"].push_back(nlohmann::ordered_json(problem_to_json(problem)));
    print_json(out);
    return;
  }
  fmt::print("# {}: {} log, steps 0-{}; step times from {}\n", options.log,
             log_format_name(log.format), block.score.steps_in_log - 1, log.step_time_source);
  fmt::print("# window {}-{}: {} tokens in {:.3f} s on {} GPUs (mean step {:.3f} s)\n",
             block.setup.window_first, block.setup.window_last, block.score.window_tokens,
             block.score.window_seconds, block.setup.gpus, block.score.mean_step_time_s);
  fmt::print("{}{}{}", settings_check_comments(evidence.settings),
             memory_peak_comment(evidence.peak), planner_comment(evidence.planner, evidence.peak));
  fmt::print("{}", result_block_yaml(block));
  for (const Problem& problem : disagreements) fmt::print("{}\n", format_problem_line(problem));
}

int run_score(const GlobalOptions& global, const ScoreOptions& options) {
  OutputFormat format = output_format(options.format);
  ScoreInputs inputs;
  Problems problems;
  if (std::optional<int> stop = read_score_inputs(global, options, inputs, problems)) {
    if (!problems.empty()) print_problems(problems, format, stderr);
    return *stop;
  }
  ResultBlock& block = inputs.block;
  std::optional<TrainingLog> log = read_training_log(options.log, problems);
  if (!log) return print_problems(problems, format, stderr);
  // The log's own settings first: a score under settings the run did not have is not its score.
  ScoreEvidence evidence;
  evidence.settings = check_log_settings(*log, stated_settings(options, inputs));
  if (!evidence.settings.problems.empty())
    return print_problems(evidence.settings.problems, format, stderr);
  std::optional<RunScore> score = score_run(*log, block.setup, problems);
  if (!score) return print_problems(problems, format, stderr);
  block.score = *score;
  block.steps_per_run = log->total_steps.value_or(block.score.steps_in_log);
  evidence.peak = memory_peak(log->memory);
  Problems disagreements;
  if (inputs.recipe) {
    evidence.planner = planner_memory(*inputs.recipe);
    disagreements =
        check_result_against_recipe(block, inputs.recipe->document, inputs.recipe->recipe);
  }
  print_score(options, *log, block, evidence, disagreements);
  return disagreements.empty() ? kExitOk : kExitProblems;
}

}  // namespace

void add_score_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<ScoreOptions>();
  CLI::App* command = app.add_subcommand("score",
                                         "Score a training log under the protocol (tokens/s per "
                                         "GPU over steps 5-19, step-time CV, GPU-hours) "
                                         "and print the recipe's result block");
  command->add_option("LOG", options->log, "A Megatron-LM, Megatron-Bridge or slime training log")
      ->required();
  command->add_option("--recipe", options->recipe,
                      "The recipe the run measured (GPUs, batch, window; checks its result)");
  command->add_option("--gpus", options->gpus, "GPUs of the run")->check(whole_number(1, 1 << 20));
  command->add_option("--global-batch", options->global_batch, "Rows per step (default 128)")
      ->check(whole_number(1, std::int64_t{1} << 30));
  command->add_option("--row-tokens", options->row_tokens, "Tokens per row (default 8192)")
      ->check(whole_number(1, std::int64_t{1} << 30));
  command
      ->add_option("--window", options->window,
                   "First and last scored step, 0-based (default 5 19)")
      ->expected(2)
      ->check(whole_number(0, 1 << 24))
      ->option_text("FIRST LAST");
  command->add_option("--gpu", options->gpu, "GPU type of gpus.yaml, for cost and MFU");
  command->add_option("--model", options->model, "Model of models.yaml, for MFU");
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&global, &exit_code, options] { exit_code = run_score(global, *options); });
}

}  // namespace openrecipes::cli
