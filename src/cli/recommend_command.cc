#include "cli/recommend_command.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cli/planner_context.h"
#include "layout/layout_text.h"
#include "plan/plan_report.h"
#include "plan/recommend.h"
#include "base/number_format.h"

namespace openrecipes::cli {
namespace {

struct RecommendOptions {
  std::string model;
  std::string gpu;
  int gpus = 0;
  int per_node = 0;
  std::string goal = "sft";
  std::int64_t seq_length = kRowTokens;
  double headroom = 0.10;
  std::string format = "text";
};

int run_recommend(const GlobalOptions& global, const RecommendOptions& options) {
  if (!std::isfinite(options.headroom)) {
    fmt::print(stderr, "openrecipes recommend: --headroom: expected a fraction from 0 to 0.9\n");
    return kExitUsage;
  }
  std::optional<PlannerContext> context = load_planner_context(global, "recommend");
  if (!context) return kExitProblems;
  std::optional<ModelChoice> model = resolve_model(context->catalog(), options.model, "recommend");
  if (!model) return kExitProblems;
  const Gpu* gpu = resolve_gpu(context->catalog(), options.gpu, "recommend");
  if (!gpu) return kExitUsage;
  RecommendRequest request;
  request.model_name = model->name;
  request.family = model->family;
  request.model = model->shape;
  request.cluster = cluster_of(*gpu, options.gpus, options.per_node);
  if (request.cluster.gpus % request.cluster.per_node != 0 && request.cluster.gpus > request.cluster.per_node) {
    fmt::print(stderr, "openrecipes recommend: --gpus {}: expected a multiple of the {} GPUs per node (or fewer)\n",
               request.cluster.gpus, request.cluster.per_node);
    return kExitUsage;
  }
  request.workload.row_tokens = options.seq_length;
  request.goal = options.goal == "pretrain" ? TrainingGoal::kPretrain
                 : options.goal == "peft"   ? TrainingGoal::kPeft
                                            : TrainingGoal::kSft;
  std::vector<RecipeCandidate> candidates;
  for (const CatalogRecipe& recipe : context->checked.recipes) {
    const Model* m = context->catalog().find_model(recipe.recipe.model);
    if (m) candidates.push_back({&recipe, m->family, m->shape});
  }
  std::string why_none;
  std::optional<Recommendation> rec = recommend_recipe(request, candidates, *context->rules,
                                                       context->calibration.parameters, MemoryOptions{options.headroom},
                                                       why_none);
  if (!rec) {
    fmt::print(stderr, "openrecipes recommend: {}\n", why_none);
    return kExitProblems;
  }
  const Recipe& base = rec->base->recipe;
  const LayoutPrediction& p = rec->prediction;
  if (options.format == "json") {
    nlohmann::json overrides = nlohmann::json::array();
    for (const SettingOverride& o : rec->overrides) {
      overrides.push_back({{"setting", o.setting}, {"from", o.from}, {"to", o.to}, {"class", o.argument_class},
                           {"reason", o.reason}});
    }
    nlohmann::json checks = nlohmann::json::array();
    for (const ResizeCheck& c : rec->checks) {
      checks.push_back({{"rule", c.rule}, {"text", c.text}, {"passed", c.passed}, {"detail", c.detail}});
    }
    nlohmann::json out = {{"model", request.model_name},
                          {"gpu", request.cluster.gpu.type},
                          {"gpus", request.cluster.gpus},
                          {"goal", goal_name(request.goal)},
                          {"seq_length", request.workload.row_tokens},
                          {"recipe", rec->base->catalog_path},
                          {"match", rec->match_text},
                          {"measured_tokens_per_s_per_gpu", base.result.tokens_per_s_per_gpu},
                          {"resized_by_search", rec->resized_by_search},
                          {"prediction", prediction_to_json(p, false)},
                          {"overrides", overrides},
                          {"checks", checks},
                          {"advice", rec->advice}};
    fmt::print("{}\n", out.dump(2));
    return kExitOk;
  }
  fmt::print("{} on {} x {} ({}), rows of {} tokens\n\n", request.model_name, request.cluster.gpus,
             request.cluster.gpu.type, goal_name(request.goal), format_count(request.workload.row_tokens));
  fmt::print("start from: {} ({})\n", rec->base->catalog_path, rec->match_text);
  fmt::print("  measured: {} tokens/s per GPU on {} x {}, {} {}\n", format_thousands(base.result.tokens_per_s_per_gpu, 2),
             base.gpu.count, base.gpu.type, base.layout.label, recompute_text(base.layout.recompute));
  std::string split = p.layout.layer_split
                          ? fmt::format(" split {},{}", p.layout.layer_split->first, p.layout.layer_split->last)
                          : "";
  fmt::print("recommended layout: {} MBS{}{} recompute {}{}{}\n", p.layout.label, p.layout.rows_per_microbatch, split,
             recompute_text(p.layout.recompute),
             p.layout.dispatcher.empty() ? "" : " dispatcher " + p.layout.dispatcher,
             rec->resized_by_search ? " (the recipe's layout breaks a rule or does not fit here; the planner chose this)"
                                    : "");
  fmt::print("  predicted: {} tokens/s per GPU, MFU {}, {} per 1M tokens; memory {:.1f} GB of {:.1f} GB usable ({})\n\n",
             format_thousands(p.speed.tokens_per_s_per_gpu, 0), format_fraction_percent(p.speed.mfu, 1),
             format_usd(p.speed.usd_per_million_tokens), p.memory.memory_bytes / 1e9, p.memory.usable_bytes / 1e9,
             p.memory.fits ? "fits" : "does not fit");
  if (rec->overrides.empty()) {
    fmt::print("overrides: none; run the recipe as it is\n");
  } else {
    std::vector<std::vector<std::string>> rows = {{"override", "from", "to", "class"}};
    for (const SettingOverride& o : rec->overrides) rows.push_back({o.setting, o.from, o.to, o.argument_class});
    fmt::print("overrides (classes from rules/arguments.yaml):\n{}", aligned_table(rows, {false, true, true, false}));
  }
  fmt::print("\nresizing rules:\n");
  for (const ResizeCheck& c : rec->checks) {
    fmt::print("  {} {:<16} {}{}\n", c.passed ? "ok  " : "FAIL", c.rule, c.text,
               c.detail.empty() ? "" : ": " + c.detail);
  }
  fmt::print("\nadvice:\n");
  for (const std::string& a : rec->advice) fmt::print("  - {}\n", a);
  fmt::print("\nnext: openrecipes export --model {} --gpu {} --gpus {} --layout \"{}\" --recompute {}{}{} "
             "--to slime|megatron-lm|megatron-bridge\n",
             options.model, request.cluster.gpu.type, request.cluster.gpus, layout_text(p.layout),
             recompute_text(p.layout.recompute) +
                 (request.workload.row_tokens != 8192 ? fmt::format(" --seq-length {}", request.workload.row_tokens) : ""),
             p.layout.layer_split ? fmt::format(" --layer-split {},{}", p.layout.layer_split->first,
                                                p.layout.layer_split->last)
                                  : "",
             p.layout.dispatcher.empty() ? "" : " --dispatcher " + p.layout.dispatcher);
  return kExitOk;
}

}  // namespace

void add_recommend_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<RecommendOptions>();
  CLI::App* recommend = app.add_subcommand(
      "recommend", "The best catalog recipe for a model, GPU type and count, resized, with each override classed");
  recommend->add_option("--model", options->model, "Catalog model (name or slug) or a Hugging Face config.json")
      ->required();
  recommend->add_option("--gpu", options->gpu, "GPU type from gpus.yaml (e.g. H200)")->required();
  recommend->add_option("--gpus", options->gpus, "GPUs in all")->required()->check(CLI::Range(1, 1 << 20));
  recommend->add_option("--per-node", options->per_node, "GPUs per node (default: the GPU type's)")
      ->check(CLI::Range(1, 1 << 10));
  recommend->add_option("--goal", options->goal, "sft (default), pretrain or peft")
      ->check(CLI::IsMember({"sft", "pretrain", "peft"}));
  recommend->add_option("--seq-length", options->seq_length, "Tokens per row (default 8192)")
      ->check(CLI::Range(static_cast<std::int64_t>(1), static_cast<std::int64_t>(1) << 24));
  recommend->add_option("--headroom", options->headroom, "Fraction of GPU memory kept free (default 0.10)")
      ->check(CLI::Range(0.0, 0.9));
  recommend->add_option("--format", options->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  recommend->callback([&global, &exit_code, options] { exit_code = run_recommend(global, *options); });
}

}  // namespace openrecipes::cli
