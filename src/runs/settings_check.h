// A log's own run settings (runs/log_settings.h) against what the recipe or the command line
// says the run was: world size, global batch, micro batch, sequence length and the model's sizes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "runs/training_log.h"

namespace openrecipes {

/// A value the run is said to have and where it comes from, for messages ("--gpus",
/// "the recipe's gpu.count (recipes/x.yaml:8:3)").
struct StatedValue {
  std::int64_t value = 0;
  std::string source;
};

/// What the run is said to be; a term left nullopt is not compared.
struct StatedSettings {
  std::optional<StatedValue> world_size;    ///< GPUs
  std::optional<StatedValue> global_batch;  ///< rows per step
  std::optional<StatedValue> micro_batch;   ///< rows per micro-batch
  std::optional<StatedValue> seq_length;    ///< tokens per row
  std::optional<StatedValue> hidden_size;
  std::optional<StatedValue> num_layers;   ///< decoder layers, MTP excluded
  std::optional<StatedValue> num_experts;  ///< routed experts per MoE layer (0: dense)
};

/// How one term came out.
enum class TermStatus {
  kAgrees,      ///< the log prints it and it matches
  kDisagrees,   ///< the log prints another value (a Problem)
  kNotPrinted,  ///< the log does not print it
  kNotStated,   ///< nothing to compare it with (no recipe, flag or model)
  kNotChecked,  ///< the log's value does not mean the stated term (note says why)
};

/// "cross-checked", "DISAGREES", "not printed by the log", "not stated", "not checked".
std::string term_status_name(TermStatus status);

/// One term's comparison.
struct TermCheck {
  std::string term;  ///< the log's name of it: world_size, global_batch_size, ...
  TermStatus status = TermStatus::kNotPrinted;
  std::optional<LoggedValue> logged;
  std::optional<StatedValue> stated;
  std::string note;  ///< why a term is not checked
};

/// Every term, in a fixed order, and a Problem for each disagreement.
struct SettingsCheck {
  std::vector<TermCheck> terms;
  Problems problems;
};

/// Compares `log.settings` with `stated`. Each disagreement is one Problem at the log's line
/// (file: the log, field: the term, rule `score.<term>`: score.world_size, score.global_batch,
/// score.micro_batch, score.seq_length, score.hidden_size, score.num_layers, score.num_experts),
/// naming both values, the log line and the stated value's source; a global batch that changes
/// during the run is one more (rule score.global_batch). slime logs: seq_length and
/// micro_batch_size are not checked (slime packs rows by --max-tokens-per-gpu and prints
/// seq_length as a placeholder, 4096 when unset: slime/backends/megatron_utils/arguments.py).
SettingsCheck check_log_settings(const TrainingLog& log, const StatedSettings& stated);

/// `# ` comment lines for score's output: the terms cross-checked (with the log's values and
/// lines), those the log does not print, those nothing states, and those not checked (with why).
/// One line per group that has a term.
std::string settings_check_comments(const SettingsCheck& check);

/// Each term as {term, status, log: {value, line, text} or null, stated: {value, source} or null,
/// note}.
nlohmann::ordered_json settings_check_json(const SettingsCheck& check);

}  // namespace openrecipes
