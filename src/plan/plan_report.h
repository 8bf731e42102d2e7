// Writers for the planner's results: JSON objects for scripts and aligned text for people.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "plan/layout_prediction.h"

namespace openrecipes {

/// A layout's sizes and settings as JSON: label, tp, pp, vpp, cp, ep, etp, dp, sequence_parallel,
/// layer_split, pipeline_layout (or null), account_for_embedding_in_pipeline_split,
/// account_for_loss_in_pipeline_split, rows_per_microbatch, max_tokens_per_gpu, recompute (text
/// form), dispatcher.
nlohmann::json layout_to_json(const Layout& layout);

/// A prediction as JSON: layout, tokens_per_s_per_gpu, step_time_s, mfu, usd_per_million_tokens,
/// memory_bytes, usable_memory_bytes, fits, and with `details` the per-stage memory and the step
/// time terms.
nlohmann::json prediction_to_json(const LayoutPrediction& prediction, bool details);

/// A predicted $ / 1M tokens as people read it: "$0.21", or "no rate" when the GPU type has no
/// USD rate in gpus.yaml (the speed model then leaves the cost at 0).
std::string predicted_usd_text(double usd_per_million_tokens);

/// The flags `openrecipes export` (and `plan --layout`) take to rebuild `layout` of the model
/// named `model_text` on `cluster` under `workload`: `--model M --gpu G --gpus N --layout "..."
/// --recompute R` (with --per-node after --gpus when the cluster's node is not the GPU type's),
/// then --seq-length and --global-batch when not the protocol's, the placement flags,
/// --dispatcher when set, and the run settings `workload` switches on (--tp-comm-overlap,
/// --moe-shared-expert-overlap, --overlap-moe-expert-parallel-comm, --moe-flex-dispatcher-backend
/// hybridep with the flex dispatcher, --grad-reduce-in-bf16). Values are written as the flags
/// parse them (layout/layout_text.h).
std::string layout_flags_text(const std::string& model_text, const ClusterShape& cluster,
                              const PlanWorkload& workload, const Layout& layout);

/// One layout explained: the memory of every stage by kind and the step-time terms, as text.
std::string prediction_explanation_text(const LayoutPrediction& prediction);

/// Right-aligned and left-aligned columns: rows of cells, the first row a header; `right[i]` says
/// whether column i is right-aligned.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows,
                          const std::vector<bool>& right);

/// Takes column `column` out of `rows` (a table as aligned_table reads it) and `right`: for a
/// column only some tables have, such as the dispatcher, which a dense model's layouts lack.
void erase_column(std::vector<std::vector<std::string>>& rows, std::vector<bool>& right,
                  std::size_t column);

}  // namespace openrecipes
