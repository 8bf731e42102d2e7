#include "cli/tune_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include "cli/json_output.h"
#include "cli/number_options.h"
#include "cli/planner_context.h"
#include "cli/problem_output.h"
#include "cli/run_setting_options.h"
#include "cli/slurm_job_flags.h"
#include "layout/layout_text.h"
#include "measure/slurm_client.h"
#include "plan/layout_plan.h"
#include "plan/layout_request.h"
#include "plan/plan_report.h"
#include "plan/speed_model.h"
#include "tune/layout_proposals.h"
#include "tune/tune_session.h"
#include "tune/tune_summary.h"

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

// The round as text; a dispatcher column, as plan's table has, for an MoE model's layouts (their
// flex backend from `workload`).
std::string proposals_text(const ProposalRound& round, const PlanWorkload& workload) {
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
  const bool dispatchers =
      std::any_of(round.proposals.begin(), round.proposals.end(),
                  [](const LayoutProposal& p) { return !p.prediction.layout.dispatcher.empty(); });
  std::vector<std::vector<std::string>> rows = {{"layout", "recompute", "dispatcher",
                                                 "predicted tokens/s/GPU", "band", "optimistic",
                                                 "memory GB"}};
  for (const LayoutProposal& p : round.proposals) {
    const Layout& layout = p.prediction.layout;
    std::string placement = placement_text(layout);
    rows.push_back({layout_text(layout) + (placement.empty() ? "" : ", " + placement),
                    recompute_text(p.prediction.layout.recompute),
                    dispatcher_name(layout, workload),
                    fmt::format("{:.0f}", p.prediction.speed.tokens_per_s_per_gpu),
                    fmt::format("±{:.0f}%", 100 * p.band_used),
                    fmt::format("{:.0f}", p.optimistic_tokens_per_s_per_gpu),
                    fmt::format("{:.1f}", p.prediction.memory.memory_bytes / 1e9)});
  }
  std::vector<bool> right = {false, false, false, true, true, true, true};
  if (!dispatchers) erase_column(rows, right, 2);
  return out + aligned_table(rows, right);
}

int run_propose(const GlobalOptions& global, const ProposeOptions& options) {
  OutputFormat format = output_format(options.format);
  const PlanArguments& arguments = options.arguments;
  if (arguments.model.empty() || arguments.gpu.empty() || arguments.gpus < 1)
    return print_usage_error("openrecipes tune propose", "give --model M --gpu G --gpus N", format);
  Problems problems;
  std::optional<PlannerContext> context =
      load_planner_context(global, "tune", problems, true, arguments.model);
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
    fmt::print("{}", proposals_text(round, plan.workload));
  }
  return kExitOk;
}

constexpr const char* kTune = "openrecipes tune";

struct LoopOptions {
  PlanArguments arguments;
  std::string reference;
  std::string author;
  bool slurm = false;
  double budget_gpu_hours = 0;  // 0: no budget
  int max_runs = 8;
  int parallel = 1;
  std::string state = "openrecipes-tune";
  std::string variant;
  bool replace = false;
  std::string proposer;
  SlurmJobFlags job;
  std::string format = "text";
};

int exit_status(TuneEnding ending) {
  switch (ending) {
    case TuneEnding::kVerified:
      return kExitOk;
    case TuneEnding::kInterrupted:
      return 130;  // the shell's status for a process ended by SIGINT
    case TuneEnding::kUnverified:
    case TuneEnding::kNoRecipe:
      break;
  }
  return kExitProblems;
}

int run_loop(const GlobalOptions& global, const LoopOptions& options) {
  OutputFormat format = output_format(options.format);
  const PlanArguments& arguments = options.arguments;
  if (arguments.model.empty() || arguments.gpu.empty() || arguments.gpus < 1 ||
      options.reference.empty() || options.author.empty()) {
    return print_usage_error(
        kTune,
        "give --model M --gpu G --gpus N --reference REF.yaml --author HANDLE --slurm (or the "
        "propose subcommand)",
        format);
  }
  if (!options.slurm)
    return print_usage_error(kTune, "give --slurm (Slurm is the scheduler tune runs on)", format);
  std::optional<std::filesystem::path> root = resolve_root(global);
  if (!root) return kExitUsage;
  std::optional<MeasureRequest> measure = measure_request_from(options.job, kTune, format);
  if (!measure) return kExitUsage;
  Problems problems;
  std::optional<PlannerContext> context =
      load_planner_context(global, "tune", problems, true, arguments.model);
  if (!context) return problems.empty() ? kExitUsage : print_problems(problems, format);
  std::optional<PlanRequest> request =
      resolve_plan_request(context->catalog(), arguments, problems);
  if (!request) return print_problems(problems, format);
  if (!context->rules) return print_usage_error(kTune, "rules/arguments.yaml is missing", format);

  TuneInputs inputs;
  inputs.catalog = &context->catalog();
  inputs.measured = &context->measured;
  inputs.rules = &*context->rules;
  inputs.request = *request;
  inputs.model_text = arguments.model;
  inputs.calibrate = [](const std::vector<MeasuredLayout>& rows, bool leave_one_model_out) {
    return calibrate_speed_model(rows, {}, leave_one_model_out);
  };
  TuneOptions tune;
  tune.root = *root;
  tune.state_dir = options.state;
  tune.reference = options.reference;
  tune.author = options.author;
  if (options.budget_gpu_hours > 0) tune.budget_gpu_hours = options.budget_gpu_hours;
  tune.max_runs = options.max_runs;
  tune.parallel = options.parallel;
  tune.variant = options.variant;
  tune.replace = options.replace;
  tune.proposer = options.proposer;
  tune.measure = *measure;

  SlurmClient slurm;
  if (!slurm.available()) {
    return print_usage_error(kTune,
                             "Slurm's commands are not on PATH (no sbatch): run on a Slurm login "
                             "node, or add Slurm's bin folder to PATH",
                             format);
  }
  StopOnSignal stop_on_signal;
  TerminalObserver observer(kTune);
  std::optional<TuneOutcome> outcome = run_tune_session(inputs, tune, slurm, observer, problems);
  if (!outcome) return print_problems(problems, format);
  if (format == OutputFormat::kJson) {
    nlohmann::ordered_json out = outcome->summary;
    if (!problems.empty()) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (const Problem& problem : problems) list.push_back(format_problem_line(problem));
      out["problems"] = list;
    }
    print_json(out);
  } else {
    fmt::print("{}", tune_summary_text(outcome->summary));
    for (const Problem& problem : problems)
      fmt::print(stderr, "{}\n", format_problem_line(problem));
  }
  return exit_status(outcome->ending);
}

void add_loop_options(CLI::App& tune, LoopOptions& options) {
  tune.add_option("--model", options.arguments.model, "Catalog model (name or slug)");
  tune.add_option("--gpu", options.arguments.gpu, "GPU type from gpus.yaml (e.g. H200)");
  tune.add_option("--gpus", options.arguments.gpus, "GPUs in all")->check(whole_number(1, 1 << 20));
  tune.add_option("--reference", options.reference,
                  "The reference recipe: every draft takes its settings, and its 20-step arm "
                  "verifies the winner");
  tune.add_option("--author", options.author, "GitHub handle the recipe is written under");
  tune.add_flag("--slurm", options.slurm, "Run the measurements as Slurm batch jobs (sbatch)");
  tune.add_option("--budget-gpu-hours", options.budget_gpu_hours,
                  "GPU-hours the search may spend, from Slurm's own times (default: no budget)")
      ->check(positive_real_number());
  tune.add_option("--max-runs", options.max_runs, "Runs the search may submit (default 8)")
      ->check(whole_number(1, 1000));
  tune.add_option("--parallel", options.parallel, "Jobs at once (default 1)")
      ->check(whole_number(1, 64));
  tune.add_option("--state", options.state,
                  "State folder: tune.jsonl and every run's files; give the same one to resume "
                  "(default openrecipes-tune)");
  tune.add_option("--variant", options.variant, "The recipe file name's -<variant> suffix");
  tune.add_flag("--replace", options.replace, "Replace a recipe already at the catalog path");
  tune.add_option("--proposer", options.proposer,
                  "A program that replaces the proposal step: run as PROGRAM INPUT.json, it prints "
                  "the layouts to run as JSON (docs/tune.md, \"Your own proposal step\")");
  add_slurm_options(tune, options.job);
  add_run_options(tune, options.job);
  tune.add_option("--format", options.format, "Output format of the summary and errors")
      ->check(CLI::IsMember({"text", "json"}));
}

}  // namespace

void add_tune_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  CLI::App* tune = app.add_subcommand(
      "tune",
      "Search layouts on Slurm from the calibrated planner, learn from each run, and write the "
      "winner as a verified recipe; or propose the next layouts (docs/tune.md)");
  tune->require_subcommand(0, 1);
  auto loop = std::make_shared<LoopOptions>();
  add_loop_options(*tune, *loop);
  auto options = std::make_shared<ProposeOptions>();
  CLI::App* propose = tune->add_subcommand(
      "propose",
      "The next layouts worth a run: not measured yet, fitting, and predicted (with their error "
      "band) to beat the best measured; says stop when none is left");
  propose->add_option("--model", options->arguments.model, "Catalog model (name or slug)");
  propose->add_option("--gpu", options->arguments.gpu, "GPU type from gpus.yaml (e.g. H200)");
  propose->add_option("--gpus", options->arguments.gpus, "GPUs in all")
      ->check(whole_number(1, 1 << 20));
  add_run_setting_options(*propose, options->arguments.settings, "");
  propose->add_option("--session", options->session,
                      "This session's runs, JSON Lines: a proposal's layout fields with "
                      "tokens_per_s_per_gpu or failure (docs/tune.md)");
  propose->add_option("--count", options->count, "Layouts to propose (default 3, at most 200)")
      ->check(whole_number(1, kRankedForProposals));
  propose->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  propose->callback([&global, &exit_code, options] { exit_code = run_propose(global, *options); });
  tune->callback([&global, &exit_code, loop, propose] {
    if (!propose->parsed()) exit_code = run_loop(global, *loop);
  });
}

}  // namespace openrecipes::cli
