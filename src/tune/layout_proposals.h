// The proposal step of tuning (docs/tune.md, "Proposals"): from the planner's ranked layouts and
// what this session has measured, the next layouts worth a run. A layout is worth one while its
// optimistic figure (the prediction raised by its error band) beats the best measured; the
// widest bands are the ones most worth exploring, so the order is by that optimistic figure. A
// tuner of someone else's (an agent, a rule set) can replace this step: it reads and writes the
// same JSON (session_run_from_json, proposal_round_to_json).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "plan/layout_plan.h"

namespace openrecipes {

/// One run of this session: the layout measured and its tokens/s per GPU, or how it failed.
struct SessionRun {
  Layout layout;
  std::optional<double> tokens_per_s_per_gpu;  ///< the protocol's score; nullopt when it failed
  /// "" when measured, else why not: "oom" (out of memory), "timeout", "crash", "node_failure"
  std::string failure;
};

/// A layout proposed for the next run.
struct LayoutProposal {
  LayoutPrediction prediction;
  PredictionBand band;
  double band_used = 0;  ///< the band the order used (fraction): wider than band for the unlike
  double optimistic_tokens_per_s_per_gpu = 0;  ///< predicted x (1 + band_used)
};

/// One round of the proposal step.
struct ProposalRound {
  std::vector<LayoutProposal> proposals;          ///< best optimistic figure first, at most `count`
  double best_measured_tokens_per_s_per_gpu = 0;  ///< 0 when nothing is measured
  std::string best_measured;  ///< its name: a recipe, a published row, or "this session"
  int skipped_measured = 0;   ///< ranked layouts measured already (catalog, published, session)
  int skipped_failed = 0;     ///< ranked layouts that failed in this session
  int skipped_memory = 0;     ///< predicted to need as much memory as a layout that ran out
  int beaten = 0;             ///< whose optimistic figure does not beat the best measured
  /// true when nothing is left to propose; stop_reason says why
  bool stop = false;
  std::string stop_reason;
};

/// A prediction unlike anything measured (PredictionBand::unlike_measured, or no band) is ordered
/// as if its band were at least this wide: explore it before a narrow band of the same figure.
inline constexpr double kUnlikeBand = 0.5;

/// The next `count` (>= 1) layouts of `plan` (plan_layouts' ranked layouts with their bands):
/// each ranked layout not measured yet (the catalog's or published, plan.ranked_measured; or a
/// run of `session`, same_layout), not failed in `session`, and predicted to need less memory than
/// every layout of `session` that ran out of memory, whose optimistic figure beats the best
/// measured (plan.best_measured and the session's runs), best optimistic figure first. `stop`
/// when none is left.
ProposalRound propose_layouts(const LayoutPlan& plan, const std::vector<SessionRun>& session,
                              int count);

/// A session run from one JSON object, as a tuner writes it: {"layout": "TP1 PP2 VPP1 CP1 EP4
/// ETP1 MBS1", "recompute": "none", "placement": {"layer_split": "12,12" or null,
/// "pipeline_layout": "..." or null, "account_for_embedding": bool, "account_for_loss": bool},
/// "dispatcher": "alltoall", and either "tokens_per_s_per_gpu": number > 0 or "failure": one of
/// oom, timeout, crash, node_failure} ("placement" and "dispatcher" optional). `row_tokens`
/// completes the layout (layout/layout_text.h). Returns nullopt with Problems (file `file`, field
/// `[line].key`, rule `tune.session`) for anything else.
std::optional<SessionRun> session_run_from_json(const nlohmann::json& value,
                                                std::int64_t row_tokens, const std::string& file,
                                                int line, Problems& problems);

/// The layout a proposal's JSON names: its layout, recompute, placement and dispatcher fields as
/// session_run_from_json reads them, whatever outcome fields it has or lacks. nullopt with that
/// function's Problems for anything else.
std::optional<Layout> proposal_layout_from_json(const nlohmann::json& value,
                                                std::int64_t row_tokens, const std::string& file,
                                                int line, Problems& problems);

/// Reads a JSON Lines file of session runs (one object a line; blank lines skipped). A line with
/// an "event" is a tune state folder's log (tune_log.h): its `measured` and `failed` events are
/// read as runs and its other events skipped, so `tune propose --session STATE/tune.jsonl` works.
/// Returns nullopt with Problems naming the file and line for a line that is not JSON or not a run.
std::optional<std::vector<SessionRun>> read_session_runs(const std::string& path,
                                                         std::int64_t row_tokens,
                                                         Problems& problems);

/// The round as JSON: {"stop", "stop_reason", "best_measured": {"name", "tokens_per_s_per_gpu"}
/// or null, "skipped": {...}, "proposals": [{"layout", "recompute", "placement", "dispatcher",
/// "label", "flags" (export's flags for `model_text`), "predicted_tokens_per_s_per_gpu",
/// "band", "optimistic_tokens_per_s_per_gpu", "memory_gb", "nearest_measured"}]}; each proposal's
/// layout fields read back with session_run_from_json.
nlohmann::ordered_json proposal_round_to_json(const ProposalRound& round, const LayoutPlan& plan,
                                              const std::string& model_text);

}  // namespace openrecipes
