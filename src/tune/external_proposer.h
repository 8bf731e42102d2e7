// A proposal step of someone else's (docs/tune.md, "Your own proposal step"): `tune --proposer
// PROGRAM` runs `PROGRAM INPUT.json` whenever it has room for a run, and the program answers with
// the layouts to run, or stop. The loop still measures, learns and verifies.
#pragma once

#include <csignal>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "plan/layout_plan.h"
#include "tune/layout_proposals.h"

namespace openrecipes {

/// Seconds a proposer may think before the session gives up on it.
inline constexpr double kProposerTimeoutS = 600;

/// One call of the program.
struct ProposerCall {
  std::string program;           ///< as --proposer gave it
  std::string input_path;        ///< where the input is written (the state folder)
  nlohmann::ordered_json input;  ///< the input document (docs/tune.md)
  int room = 1;                  ///< at most this many of its proposals are taken
  std::int64_t row_tokens = 0;   ///< completes the layouts it names (layout/layout_text.h)
  /// Non-zero (Ctrl-C): the program is killed and an empty round returned; may be null.
  const volatile std::sig_atomic_t* stop = nullptr;
};

/// Writes `call.input` at `call.input_path` (atomically), runs the program (at most
/// kProposerTimeoutS seconds) and reads its answer: {"proposals": [LAYOUT...]} (each a proposal's
/// layout fields, as session_run_from_json reads them, naming one of `plan`'s ranked layouts that
/// is not one of `done`, the session's runs so far) or {"stop": true, "stop_reason": "..."}.
/// Returns the round (its proposals with their predictions and bands from `plan`, at most
/// `call.room`, each layout once; stop when it said so or proposed nothing; empty, not stop,
/// when `call.stop` ended the program). Returns nullopt with one Problem (file
/// the program, field `proposals[i]`, rule `tune.proposer`) for an answer that is not that, and
/// when the input cannot be written. Throws IoError when the program cannot run, exits non-zero
/// or gives no answer in time (it is then killed).
std::optional<ProposalRound> run_external_proposer(const ProposerCall& call, const LayoutPlan& plan,
                                                   const std::vector<SessionRun>& done,
                                                   Problems& problems);

}  // namespace openrecipes
