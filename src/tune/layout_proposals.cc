#include "tune/layout_proposals.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>

#include "base/json_depth.h"
#include "base/json_syntax.h"
#include "base/yaml_document.h"
#include "layout/layout_text.h"
#include "plan/plan_report.h"

namespace openrecipes {
namespace {

constexpr std::array<const char*, 4> kFailures = {"oom", "timeout", "crash", "node_failure"};

bool in_session(const std::vector<SessionRun>& session, const Layout& layout, bool failed) {
  return std::any_of(session.begin(), session.end(), [&](const SessionRun& run) {
    return failed == !run.failure.empty() && same_layout(run.layout, layout);
  });
}

// The least memory a ranked layout that ran out of memory in `session` was predicted to need;
// nullopt when none did (or none of them is among the ranked).
std::optional<double> least_memory_that_failed(const LayoutPlan& plan,
                                               const std::vector<SessionRun>& session) {
  std::optional<double> least;
  for (const SessionRun& run : session) {
    if (run.failure != "oom") continue;
    for (const LayoutPrediction& ranked : plan.search.ranked) {
      if (!same_layout(ranked.layout, run.layout)) continue;
      double bytes = ranked.memory.memory_bytes;
      least = least ? std::min(*least, bytes) : bytes;
    }
  }
  return least;
}

}  // namespace

ProposalRound propose_layouts(const LayoutPlan& plan, const std::vector<SessionRun>& session,
                              int count) {
  ProposalRound round;
  if (plan.best_measured) {
    round.best_measured_tokens_per_s_per_gpu = plan.best_measured->tokens_per_s_per_gpu;
    round.best_measured = plan.best_measured->name;
  }
  for (const SessionRun& run : session) {
    if (run.tokens_per_s_per_gpu &&
        *run.tokens_per_s_per_gpu > round.best_measured_tokens_per_s_per_gpu) {
      round.best_measured_tokens_per_s_per_gpu = *run.tokens_per_s_per_gpu;
      round.best_measured = "this session: " + layout_text(run.layout);
    }
  }
  std::optional<double> memory_limit = least_memory_that_failed(plan, session);
  std::vector<LayoutProposal> open;
  for (std::size_t i = 0; i < plan.search.ranked.size(); ++i) {
    const LayoutPrediction& prediction = plan.search.ranked[i];
    if ((i < plan.ranked_measured.size() && plan.ranked_measured[i]) ||
        in_session(session, prediction.layout, false)) {
      ++round.skipped_measured;
      continue;
    }
    if (in_session(session, prediction.layout, true)) {
      ++round.skipped_failed;
      continue;
    }
    if (memory_limit && prediction.memory.memory_bytes >= *memory_limit) {
      ++round.skipped_memory;
      continue;
    }
    LayoutProposal proposal{prediction, {}, 0, 0};
    if (i < plan.ranked_bands.size()) proposal.band = plan.ranked_bands[i];
    proposal.band_used = proposal.band.unlike_measured || proposal.band.rows == 0
                             ? std::max(proposal.band.relative_error, kUnlikeBand)
                             : proposal.band.relative_error;
    proposal.optimistic_tokens_per_s_per_gpu =
        prediction.speed.tokens_per_s_per_gpu * (1 + proposal.band_used);
    if (proposal.optimistic_tokens_per_s_per_gpu <= round.best_measured_tokens_per_s_per_gpu) {
      ++round.beaten;
      continue;
    }
    open.push_back(proposal);
  }
  std::stable_sort(open.begin(), open.end(), [](const LayoutProposal& a, const LayoutProposal& b) {
    return a.optimistic_tokens_per_s_per_gpu > b.optimistic_tokens_per_s_per_gpu;
  });
  if (open.size() > static_cast<std::size_t>(std::max(count, 1))) open.resize(std::max(count, 1));
  round.proposals = std::move(open);
  round.stop = round.proposals.empty();
  if (round.stop) {
    round.stop_reason =
        plan.search.ranked.empty()
            ? (plan.search.legal == 0
                   ? "no layout is legal under these run settings (openrecipes plan --explain "
                     "says which rule refuses them)"
                   : "no legal layout fits (openrecipes plan --explain says why)")
            : fmt::format(
                  "no remaining layout is predicted to beat the best measured, {:.0f} "
                  "tokens/s per GPU ({}), by more than its error band",
                  round.best_measured_tokens_per_s_per_gpu, round.best_measured);
  }
  return round;
}

std::optional<SessionRun> session_run_from_json(const nlohmann::json& value,
                                                std::int64_t row_tokens, const std::string& file,
                                                int line, Problems& problems) {
  std::size_t before = problems.size();
  auto fail = [&](const std::string& key, const std::string& message, const std::string& expected,
                  const std::string& found) {
    problems.push_back({file, {line, 1}, key, "tune.session", message, expected, found});
  };
  if (!value.is_object()) {
    fail("", "a session run is a JSON object", "{\"layout\": ..., ...}", value.type_name());
    return std::nullopt;
  }
  auto text = [&](const char* key, bool required) -> std::optional<std::string> {
    auto it = value.find(key);
    if (it == value.end() || it->is_null()) {
      if (required) fail(key, "missing", "a string", "nothing");
      return std::nullopt;
    }
    if (!it->is_string()) {
      fail(key, "wrong type", "a string", it->type_name());
      return std::nullopt;
    }
    return it->get<std::string>();
  };
  SessionRun run;
  Problems parse;  // layout_text.h's problems name the flag; renamed to the key below
  std::optional<std::string> layout = text("layout", true);
  if (layout) {
    if (std::optional<Layout> parsed = parse_layout_text(*layout, row_tokens, parse))
      run.layout = *parsed;
  }
  if (std::optional<std::string> recompute = text("recompute", false)) {
    if (std::optional<std::optional<Recompute>> parsed = parse_recompute_text(*recompute, parse))
      run.layout.recompute = *parsed;
  }
  if (std::optional<std::string> dispatcher = text("dispatcher", false)) {
    if (*dispatcher == "alltoall" || *dispatcher == "flex" || *dispatcher == "allgather")
      run.layout.dispatcher = *dispatcher;
    else
      fail("dispatcher", "not a dispatcher", "alltoall, flex or allgather", *dispatcher);
  }
  if (auto it = value.find("placement"); it != value.end() && !it->is_null()) {
    if (!it->is_object()) {
      fail("placement", "wrong type", "an object", it->type_name());
    } else {
      const nlohmann::json& placement = *it;
      auto field = [&](const char* key, bool (nlohmann::json::*is)() const noexcept,
                       const char* type) -> const nlohmann::json* {
        auto found = placement.find(key);
        if (found == placement.end() || found->is_null()) return nullptr;
        if (!((*found).*is)()) {
          fail(std::string("placement.") + key, "wrong type", type, found->type_name());
          return nullptr;
        }
        return &*found;
      };
      if (const nlohmann::json* split =
              field("layer_split", &nlohmann::json::is_string, "a string"))
        run.layout.layer_split = parse_layer_split_text(split->get<std::string>(), parse);
      if (const nlohmann::json* pl =
              field("pipeline_layout", &nlohmann::json::is_string, "a string"))
        run.layout.pipeline_layout = pl->get<std::string>();
      if (const nlohmann::json* e =
              field("account_for_embedding", &nlohmann::json::is_boolean, "true or false"))
        run.layout.account_for_embedding_in_pipeline_split = e->get<bool>();
      if (const nlohmann::json* l =
              field("account_for_loss", &nlohmann::json::is_boolean, "true or false"))
        run.layout.account_for_loss_in_pipeline_split = l->get<bool>();
    }
  }
  for (Problem& problem : parse) {
    problem.file = file;
    problem.position = {line, 1};
    problem.rule = "tune.session";
    problems.push_back(problem);
  }
  auto score = value.find("tokens_per_s_per_gpu");
  auto failure = value.find("failure");
  bool has_score = score != value.end() && !score->is_null();
  bool has_failure = failure != value.end() && !failure->is_null();
  if (has_score == has_failure) {
    fail("", "a session run has either tokens_per_s_per_gpu or failure", "exactly one of them",
         has_score ? "both" : "neither");
  } else if (has_score) {
    if (!score->is_number() || !(score->get<double>() > 0) || !std::isfinite(score->get<double>()))
      fail("tokens_per_s_per_gpu", "not a positive number", "a number > 0", score->dump());
    else
      run.tokens_per_s_per_gpu = score->get<double>();
  } else {
    std::string found = failure->is_string() ? failure->get<std::string>() : failure->dump();
    if (std::find(kFailures.begin(), kFailures.end(), found) == kFailures.end())
      fail("failure", "not a failure tune knows", "oom, timeout, crash or node_failure", found);
    else
      run.failure = found;
  }
  if (problems.size() != before) return std::nullopt;
  return run;
}

std::optional<Layout> proposal_layout_from_json(const nlohmann::json& value,
                                                std::int64_t row_tokens, const std::string& file,
                                                int line, Problems& problems) {
  if (!value.is_object()) {  // refused there, with its message
    session_run_from_json(value, row_tokens, file, line, problems);
    return std::nullopt;
  }
  nlohmann::json run = value;
  run.erase("tokens_per_s_per_gpu");
  run["failure"] = "crash";  // an outcome session_run_from_json accepts; only the layout is kept
  std::optional<SessionRun> parsed = session_run_from_json(run, row_tokens, file, line, problems);
  if (!parsed) return std::nullopt;
  return parsed->layout;
}

std::optional<std::vector<SessionRun>> read_session_runs(const std::string& path,
                                                         std::int64_t row_tokens,
                                                         Problems& problems) {
  std::optional<std::string> text = read_text_file(path, kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  std::vector<SessionRun> runs;
  std::size_t before = problems.size();
  std::size_t at = 0;
  for (int line = 1; at < text->size(); ++line) {
    std::size_t end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    std::string_view row(text->data() + at, end - at);
    at = end + 1;
    if (row.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (std::optional<JsonSyntaxError> error = json_syntax_error(row)) {
      Problem problem = json_syntax_problem(*error, path, "tune.session");
      problem.position = {line, 1};
      problems.push_back(problem);
      continue;
    }
    if (json_too_deep(row)) {
      problems.push_back({path, {line, 1}, "", "tune.session", "nested too deep", "", ""});
      continue;
    }
    nlohmann::json value = nlohmann::json::parse(row);
    // A tune state folder's log (tune_log.h): its measured and failed events are runs, its other
    // events are not.
    if (value.is_object() && value.contains("event")) {
      const nlohmann::json& event = value["event"];
      if (!event.is_string() || (event != "measured" && event != "failed")) continue;
    }
    std::optional<SessionRun> run = session_run_from_json(value, row_tokens, path, line, problems);
    if (run) runs.push_back(std::move(*run));
  }
  if (problems.size() != before) return std::nullopt;
  return runs;
}

nlohmann::ordered_json proposal_round_to_json(const ProposalRound& round, const LayoutPlan& plan,
                                              const std::string& model_text) {
  nlohmann::ordered_json proposals = nlohmann::ordered_json::array();
  for (const LayoutProposal& p : round.proposals) {
    const Layout& layout = p.prediction.layout;
    nlohmann::ordered_json placement = {
        {"layer_split", layout.layer_split
                            ? nlohmann::ordered_json(fmt::format("{},{}", layout.layer_split->first,
                                                                 layout.layer_split->last))
                            : nlohmann::ordered_json(nullptr)},
        {"pipeline_layout", layout.pipeline_layout.empty()
                                ? nlohmann::ordered_json(nullptr)
                                : nlohmann::ordered_json(layout.pipeline_layout)},
        {"account_for_embedding", layout.account_for_embedding_in_pipeline_split},
        {"account_for_loss", layout.account_for_loss_in_pipeline_split}};
    proposals.push_back(
        {{"layout", layout_text(layout)},
         {"recompute", recompute_text(layout.recompute)},
         {"placement", placement},
         // The dispatcher the flags carry (an MoE model's layout sets one even at EP 1, where
         // it still routes the tokens); null for a dense model.
         {"dispatcher", !layout.dispatcher.empty() ? nlohmann::ordered_json(layout.dispatcher)
                        : layout.ep > 1            ? nlohmann::ordered_json("alltoall")
                                                   : nlohmann::ordered_json(nullptr)},
         {"label", layout.label},
         {"flags", layout_flags_text(model_text, plan.cluster, plan.workload, layout)},
         {"predicted_tokens_per_s_per_gpu", p.prediction.speed.tokens_per_s_per_gpu},
         {"band", p.band.relative_error},
         {"band_used", p.band_used},
         {"optimistic_tokens_per_s_per_gpu", p.optimistic_tokens_per_s_per_gpu},
         {"memory_gb", p.prediction.memory.memory_bytes / 1e9},
         {"nearest_measured", p.band.nearest}});
  }
  nlohmann::ordered_json best = nullptr;
  if (round.best_measured_tokens_per_s_per_gpu > 0)
    best = {{"name", round.best_measured},
            {"tokens_per_s_per_gpu", round.best_measured_tokens_per_s_per_gpu}};
  return {{"stop", round.stop},
          {"stop_reason", round.stop_reason},
          {"best_measured", best},
          {"skipped",
           {{"measured", round.skipped_measured},
            {"failed", round.skipped_failed},
            {"memory", round.skipped_memory},
            {"beaten", round.beaten}}},
          {"proposals", proposals}};
}

}  // namespace openrecipes
