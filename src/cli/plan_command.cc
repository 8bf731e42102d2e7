#include "cli/plan_command.h"

#include <fmt/format.h>

#include <map>
#include <memory>

#include "cli/cli_options.h"
#include "cli/json_output.h"
#include "cli/number_options.h"
#include "cli/planner_context.h"
#include "cli/problem_output.h"
#include "cli/run_setting_options.h"
#include "plan/calibration_report.h"
#include "plan/layout_plan.h"
#include "plan/layout_request.h"
#include "plan/plan_report.h"

namespace openrecipes::cli {
namespace {

struct PlanOptions {
  PlanArguments arguments;
  int top = 10;
  bool explain = false;
  bool calibration = false;
  std::string format = "text";
};

// The published rows the calibration could not use, counted by rule, with the first reason.
std::string exclusions_text(const std::vector<PublishedExclusion>& excluded) {
  if (excluded.empty()) return "";
  std::vector<std::string> rules;
  std::map<std::string, std::pair<int, std::string>> by_rule;
  for (const PublishedExclusion& e : excluded) {
    if (!by_rule.count(e.rule)) rules.push_back(e.rule);
    auto& [count, reason] = by_rule[e.rule];
    if (count++ == 0) reason = e.reason;
  }
  std::string out = fmt::format("\n{} published rows left out of the fit:\n", excluded.size());
  for (const std::string& rule : rules)
    out += fmt::format("  {} x {}, for example: {}\n", by_rule[rule].first, rule,
                       by_rule[rule].second);
  return out + "(--format json lists every row with its source and reason)\n";
}

int run_calibration(const PlannerContext& context, const PlanOptions& options) {
  if (options.format == "json") {
    nlohmann::json j = calibration_to_json(context.calibration);
    nlohmann::json excluded = nlohmann::json::array();
    for (const PublishedExclusion& e : context.excluded)
      excluded.push_back({{"source", e.source}, {"rule", e.rule}, {"reason", e.reason}});
    j["excluded"] = excluded;
    print_json(j);
  } else {
    fmt::print("{}{}", calibration_text(context.calibration), exclusions_text(context.excluded));
  }
  return kExitOk;
}

int run_plan(const GlobalOptions& global, const PlanOptions& options) {
  const PlanArguments& arguments = options.arguments;
  OutputFormat format = output_format(options.format);
  // A missing flag is told before the catalog is read and the speed model fitted (seconds).
  if (!options.calibration &&
      (arguments.model.empty() || arguments.gpu.empty() || arguments.gpus < 1)) {
    return print_usage_error("openrecipes plan",
                             "give --model M --gpu G --gpus N (or --calibration)", format);
  }
  Problems problems;
  std::optional<PlannerContext> context =
      load_planner_context(global, "plan", problems, true, arguments.model);
  // No problems: no catalog root, a usage error like every command's (resolve_root said why).
  if (!context) return problems.empty() ? kExitUsage : print_problems(problems, format);
  if (options.calibration) return run_calibration(*context, options);
  std::optional<PlanRequest> request =
      resolve_plan_request(context->catalog(), arguments, problems);
  if (!request) return print_problems(problems, format);
  if (request->layout) {
    OneLayoutPlan plan = plan_one_layout(*request, context->measured, context->calibration);
    if (options.format == "json") {
      print_json(one_layout_plan_to_json(plan));
    } else {
      fmt::print("{}", one_layout_plan_text(plan));
    }
    return kExitOk;
  }
  LayoutPlan plan = plan_layouts(*request, context->measured, context->calibration, options.top);
  if (options.format == "json") {
    print_json(layout_plan_to_json(plan));
  } else {
    fmt::print("{}", layout_plan_text(plan, options.explain));
  }
  return plan.search.ranked.empty() ? kExitProblems : kExitOk;
}

}  // namespace

void add_plan_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* plan = app.add_subcommand(
      "plan",
      "Rank every legal layout that fits by predicted tokens/s per GPU, or explain one layout");
  plan->add_option("--model", options->arguments.model,
                   "Catalog model (name or slug) or a Hugging Face config.json");
  plan->add_option("--gpu", options->arguments.gpu, "GPU type from gpus.yaml (e.g. H200)");
  plan->add_option("--gpus", options->arguments.gpus, "GPUs in all")
      ->check(whole_number(1, 1 << 20));
  plan->add_option("--per-node", options->arguments.per_node,
                   "GPUs per node (default: the GPU type's, gpus.yaml)")
      ->check(whole_number(1, 1 << 10));
  plan->add_option("--seq-length", options->arguments.seq_length,
                   "Tokens per row (default 8192, the protocol's)")
      ->check(whole_number(1, std::int64_t{1} << 24));
  plan->add_option("--global-batch", options->arguments.global_batch,
                   "Rows per step (default 128, the protocol's)")
      ->check(whole_number(1, std::int64_t{1} << 24));
  plan->add_option("--precision", options->arguments.precision,
                   "bf16 (default), fp8, or on Blackwell mxfp8 or nvfp4");
  plan->add_option("--top", options->top, "Layouts to list (default 10)")
      ->check(whole_number(1, 10000));
  CLI::Option* layout =
      plan->add_option("--layout", options->arguments.layout.layout,
                       "Predict one layout, e.g. \"TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1\" (omitted "
                       "sizes are 1; DP implied)")
          ->check(CLI::Validator(
              [](std::string& text) {
                return is_blank(text)
                           ? fmt::format("expected a layout such as \"TP2 PP8 EP32\", found {}",
                                         text.empty() ? "an empty text" : "only blanks")
                           : std::string();
              },
              ""));
  // The settings of one layout mean nothing to the search: given without --layout, they are a
  // usage error rather than silently unused.
  plan->add_option(
          "--recompute", options->arguments.layout.recompute,
          "With --layout: none (default), selective (core_attn), selective:MODULE,... (core_attn, "
          "moe_act, layernorm, mla_up_proj, mlp, moe, shared_experts), full, full:uniform:N or "
          "full:block:N")
      ->needs(layout);
  plan->add_option("--layer-split", options->arguments.layout.layer_split,
                   "With --layout: FIRST,LAST layers on the first/last stage")
      ->needs(layout);
  plan->add_option("--pipeline-layout", options->arguments.layout.pipeline_layout,
                   "With --layout: Megatron-LM's --pipeline-model-parallel-layout, e.g. "
                   "\"Et*3|(tt|)*29,m|L\" (default: the even split, or the most balanced "
                   "placement when PP x VPP does not divide the layers)")
      ->needs(layout);
  plan->add_flag("--account-for-embedding-in-pipeline-split",
                 options->arguments.layout.account_for_embedding,
                 "With --layout: count the embedding as a layer of the first stage")
      ->needs(layout);
  plan->add_flag("--account-for-loss-in-pipeline-split", options->arguments.layout.account_for_loss,
                 "With --layout: count the loss as a layer of the last stage")
      ->needs(layout);
  plan->add_option("--dispatcher", options->arguments.layout.dispatcher,
                   "alltoall, flex or allgather: the layout's (default alltoall), or without "
                   "--layout the only one the search tries (default alltoall and flex)");
  add_run_setting_options(*plan, options->arguments.settings, "");
  plan->add_option(
          "--headroom", options->arguments.headroom,
          "Fraction of GPU memory kept free for what the memory model leaves out (default 0.10)")
      ->check(real_number(0, 0.9));
  plan->add_flag("--explain", options->explain, "Show why layouts were rejected");
  plan->add_option("--format", options->format, "text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));
  CLI::Option* calibration = plan->add_flag(
      "--calibration", options->calibration,
      "Show the speed model's fit on the catalog and each recipe's leave-one-out error (alone, "
      "or with --format)");
  // The calibration reads the catalog alone: a plan's flags beside it would be silently unused.
  for (CLI::Option* option : plan->get_options()) {
    if (option != calibration && !option->check_name("--format") && !option->check_name("--help"))
      calibration->excludes(option);
  }
  plan->callback([&global, &exit_code, options] { exit_code = run_plan(global, *options); });
}

}  // namespace openrecipes::cli
