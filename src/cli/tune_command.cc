#include "cli/tune_command.h"

#include <fmt/format.h>

#include <memory>

#include "cli/json_output.h"
#include "cli/planner_context.h"
#include "cli/problem_output.h"
#include "layout/layout_text.h"
#include "plan/layout_plan.h"
#include "plan/layout_request.h"
#include "plan/plan_report.h"
#include "tune/layout_proposals.h"

namespace openrecipes::cli {
namespace {

// Layouts the proposal step ranks from: the planner's best this many.
constexpr int kRankedForProposals = 200;

struct ProposeOptions {
  PlanArguments arguments;
  std::string session;
  int count = 3;
  std::string format = "text";
};

std::string proposals_text(const ProposalRound& round) {
  std::string out;
  if (round.best_measured_tokens_per_s_per_gpu > 0) {
    out += fmt::format("best measured: {:.0f} tokens/s per GPU ({})\n",
                       round.best_measured_tokens_per_s_per_gpu, round.best_measured);
  }
  out += fmt::format(
      "skipped: {} measured, {} failed, {} predicted to need the memory of a run that ran out, "
      "{} whose band does not reach the best measured\n",
      round.skipped_measured, round.skipped_failed, round.skipped_memory, round.beaten);
  if (round.stop) return out + "stop: " + round.stop_reason + "\n";
  std::vector<std::vector<std::string>> rows = {
      {"layout", "recompute", "predicted tokens/s/GPU", "band", "optimistic", "memory GB"}};
  for (const LayoutProposal& p : round.proposals) {
    const Layout& layout = p.prediction.layout;
    std::string placement = placement_text(layout);
    rows.push_back({layout_text(layout) + (placement.empty() ? "" : ", " + placement),
                    recompute_text(p.prediction.layout.recompute),
                    fmt::format("{:.0f}", p.prediction.speed.tokens_per_s_per_gpu),
                    fmt::format("±{:.0f}%", 100 * p.band_used),
                    fmt::format("{:.0f}", p.optimistic_tokens_per_s_per_gpu),
                    fmt::format("{:.1f}", p.prediction.memory.memory_bytes / 1e9)});
  }
  return out + aligned_table(rows, {false, false, true, true, true, true});
}

int run_propose(const GlobalOptions& global, const ProposeOptions& options) {
  OutputFormat format = output_format(options.format);
  const PlanArguments& arguments = options.arguments;
  if (arguments.model.empty() || arguments.gpu.empty() || arguments.gpus < 1)
    return print_usage_error("openrecipes tune propose", "give --model M --gpu G --gpus N", format);
  Problems problems;
  std::optional<PlannerContext> context = load_planner_context(global, "tune", problems);
  if (!context) return problems.empty() ? kExitUsage : print_problems(problems, format);
  std::optional<PlanRequest> request =
      resolve_plan_request(context->catalog(), arguments, problems);
  if (!request) return print_problems(problems, format);
  std::vector<SessionRun> session;
  if (!options.session.empty()) {
    std::optional<std::vector<SessionRun>> read =
        read_session_runs(options.session, request->workload.row_tokens, problems);
    if (!read) return print_problems(problems, format);
    session = std::move(*read);
  }
  LayoutPlan plan =
      plan_layouts(*request, context->measured, context->calibration, kRankedForProposals);
  ProposalRound round = propose_layouts(plan, session, options.count);
  if (format == OutputFormat::kJson) {
    print_json(proposal_round_to_json(round, plan, arguments.model));
  } else {
    fmt::print("{}", proposals_text(round));
  }
  return kExitOk;
}

}  // namespace

void add_tune_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  CLI::App* tune = app.add_subcommand(
      "tune", "Tuning on measured runs: propose the next layouts to measure (docs/tune.md)");
  tune->require_subcommand(1);
  auto options = std::make_shared<ProposeOptions>();
  CLI::App* propose = tune->add_subcommand(
      "propose",
      "The next layouts worth a run: not measured yet, fitting, and predicted (with their error "
      "band) to beat the best measured; says stop when none is left");
  propose->add_option("--model", options->arguments.model, "Catalog model (name or slug)");
  propose->add_option("--gpu", options->arguments.gpu, "GPU type from gpus.yaml (e.g. H200)");
  propose->add_option("--gpus", options->arguments.gpus, "GPUs in all")
      ->check(CLI::Range(1, 1 << 20));
  propose->add_option("--session", options->session,
                      "This session's runs, JSON Lines: a proposal's layout fields with "
                      "tokens_per_s_per_gpu or failure (docs/tune.md)");
  propose->add_option("--count", options->count, "Layouts to propose (default 3)")
      ->check(CLI::Range(1, 100));
  propose->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  propose->callback([&global, &exit_code, options] { exit_code = run_propose(global, *options); });
}

}  // namespace openrecipes::cli
