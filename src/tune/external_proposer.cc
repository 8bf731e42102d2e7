#include "tune/external_proposer.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/atomic_write.h"
#include "base/error.h"
#include "measure/subprocess.h"
#include "plan/layout_search.h"

namespace openrecipes {

std::optional<ProposalRound> run_external_proposer(const ProposerCall& call, const LayoutPlan& plan,
                                                   const std::vector<SessionRun>& done,
                                                   Problems& problems) {
  if (!write_text_atomically(call.input_path, call.input.dump(2) + "\n", "--proposer", problems))
    return std::nullopt;
  ProcessResult result = run_process({call.program, call.input_path}, kProposerTimeoutS, call.stop);
  if (result.stopped) return ProposalRound{};  // Ctrl-C: the caller sees its stop flag
  if (result.timed_out)
    throw IoError(call.program,
                  fmt::format("--proposer {} gave no answer in {:.0f} s and was stopped",
                              call.program, kProposerTimeoutS));
  if (!result.started)
    throw IoError(call.program,
                  fmt::format("--proposer {}: cannot run it: {}", call.program, result.error));
  if (result.exit_code != 0)
    throw IoError(call.program, fmt::format("--proposer {} exited {}: {}", call.program,
                                            result.exit_code, result.err.substr(0, 300)));
  auto refuse = [&](const std::string& field, const std::string& message,
                    const std::string& expected, const std::string& found) {
    problems.push_back({call.program, {}, field, "tune.proposer", message, expected, found});
    return std::nullopt;
  };
  nlohmann::json answer = nlohmann::json::parse(result.out, nullptr, false);
  if (answer.is_discarded() || !answer.is_object())
    return refuse("", "the proposer's answer is not a JSON object",
                  "{\"proposals\": [...]} or {\"stop\": true, \"stop_reason\": \"...\"}",
                  result.out.substr(0, 80));
  ProposalRound round;
  if (answer.contains("stop") && !answer["stop"].is_boolean())
    return refuse("stop", "not true or false", "true or false", answer["stop"].dump());
  if (answer.contains("stop_reason") && !answer["stop_reason"].is_string())
    return refuse("stop_reason", "not a string", "a string", answer["stop_reason"].dump());
  if (answer.value("stop", false)) {
    round.stop = true;
    round.stop_reason = "the proposer stopped: " + answer.value("stop_reason", std::string());
    return round;
  }
  if (!answer.contains("proposals") || !answer["proposals"].is_array())
    return refuse("proposals", "missing or not a list", "a list of layouts",
                  answer.dump().substr(0, 80));
  for (std::size_t i = 0; i < answer["proposals"].size(); ++i) {
    nlohmann::json entry = answer["proposals"][i];
    std::string field = fmt::format("proposals[{}]", i);
    if (!entry.is_object()) return refuse(field, "not an object", "a layout object", entry.dump());
    Problems parse;
    std::optional<Layout> layout =
        proposal_layout_from_json(entry, call.row_tokens, call.program, 0, parse);
    if (!layout)
      return refuse(field, parse.empty() ? "not a layout" : parse.front().message,
                    "a proposal's layout fields (docs/tune.md)", entry.dump().substr(0, 80));
    const std::vector<LayoutPrediction>& ranked = plan.search.ranked;
    auto found = std::find_if(ranked.begin(), ranked.end(), [&](const LayoutPrediction& p) {
      return same_layout(p.layout, *layout);
    });
    if (found == ranked.end())
      return refuse(field, "not a layout the planner ranks (legal and fitting, its best 200)",
                    "a layout of the round's proposals or of openrecipes plan",
                    entry.value("layout", std::string()));
    if (std::any_of(done.begin(), done.end(),
                    [&](const SessionRun& r) { return same_layout(r.layout, *layout); }))
      return refuse(field, "a layout this session already ran or is running",
                    "a layout not in the input's runs", entry.value("layout", std::string()));
    if (std::any_of(round.proposals.begin(), round.proposals.end(), [&](const LayoutProposal& p) {
          return same_layout(p.prediction.layout, *layout);
        }))
      return refuse(field, "the same layout as an earlier proposal of this answer",
                    "each layout once", entry.value("layout", std::string()));
    std::size_t index = static_cast<std::size_t>(found - ranked.begin());
    LayoutProposal proposal{*found, {}, 0, 0};
    if (index < plan.ranked_bands.size()) proposal.band = plan.ranked_bands[index];
    proposal.band_used = proposal.band.relative_error;
    proposal.optimistic_tokens_per_s_per_gpu =
        found->speed.tokens_per_s_per_gpu * (1 + proposal.band_used);
    if (static_cast<int>(round.proposals.size()) < call.room) round.proposals.push_back(proposal);
  }
  if (round.proposals.empty()) {
    round.stop = true;
    round.stop_reason = "the proposer proposed nothing";
  }
  return round;
}

}  // namespace openrecipes
