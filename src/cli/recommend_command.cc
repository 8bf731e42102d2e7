#include "cli/recommend_command.h"

#include <fmt/format.h>

#include <memory>

#include "cli/json_output.h"
#include "cli/number_options.h"
#include "cli/planner_context.h"
#include "cli/problem_output.h"
#include "plan/layout_request.h"
#include "plan/recommend_report.h"

namespace openrecipes::cli {
namespace {

struct RecommendOptions {
  PlanArguments arguments;
  std::string goal = "sft";
  std::string format = "text";
};

int run_recommend(const GlobalOptions& global, const RecommendOptions& options) {
  OutputFormat format = output_format(options.format);
  Problems problems;
  std::optional<PlannerContext> context =
      load_planner_context(global, "recommend", problems, true, options.arguments.model);
  // No problems: no catalog root, a usage error like every command's (resolve_root said why).
  if (!context) return problems.empty() ? kExitUsage : print_problems(problems, format);
  std::optional<PlanRequest> plan =
      resolve_plan_request(context->catalog(), options.arguments, problems);
  if (!plan) return print_problems(problems, format);
  RecommendRequest request = recommend_request(*plan, options.goal);
  std::optional<Recommendation> rec =
      recommend_from_catalog(request, context->catalog(), context->checked.recipes, *context->rules,
                             context->calibration, context->measured, plan->memory, problems);
  if (!rec) return print_problems(problems, format);
  if (options.format == "json") {
    print_json(recommendation_to_json(request, *rec));
  } else {
    fmt::print("{}", recommendation_text(request, *rec, options.arguments.model));
  }
  return kExitOk;
}

}  // namespace

void add_recommend_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<RecommendOptions>();
  CLI::App* recommend = app.add_subcommand("recommend",
                                           "The best catalog recipe for a model, GPU type and "
                                           "count, resized, with each override classed");
  recommend
      ->add_option("--model", options->arguments.model,
                   "Catalog model (name or slug) or a Hugging Face config.json")
      ->required();
  recommend->add_option("--gpu", options->arguments.gpu, "GPU type from gpus.yaml (e.g. H200)")
      ->required();
  recommend->add_option("--gpus", options->arguments.gpus, "GPUs in all")
      ->required()
      ->check(whole_number(1, 1 << 20));
  recommend
      ->add_option("--per-node", options->arguments.per_node,
                   "GPUs per node (default: the GPU type's)")
      ->check(whole_number(1, 1 << 10));
  recommend->add_option("--goal", options->goal, "sft (default), pretrain or peft")
      ->check(CLI::IsMember({"sft", "pretrain", "peft"}));
  recommend
      ->add_option("--seq-length", options->arguments.seq_length, "Tokens per row (default 8192)")
      ->check(whole_number(1, std::int64_t{1} << 24));
  recommend
      ->add_option("--headroom", options->arguments.headroom,
                   "Fraction of GPU memory kept free (default 0.10)")
      ->check(real_number(0, 0.9));
  recommend->add_option("--format", options->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  recommend->callback(
      [&global, &exit_code, options] { exit_code = run_recommend(global, *options); });
}

}  // namespace openrecipes::cli
