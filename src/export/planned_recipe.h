// A recipe YAML draft from the planner: the recipe file's fields in the template's order
// (templates/submit.mustache) with `status: planned`, the predictions, `result: null` and
// `correctness: null`.
#pragma once

#include <string>

#include "export/export_source.h"
#include "plan/layout_prediction.h"

namespace openrecipes {

/// The draft for `source` with the planner's `prediction` and `run`, the chosen framework's
/// command (slime_command or megatron_lm_command). The stack is "not pinned"; the author is a
/// placeholder handle; workload.dataset is the settings recipe's rows, or null. The prediction
/// block gives tokens_per_s_per_gpu, memory_bytes, memory_gb, fits, mfu, usd_per_million_tokens
/// and step_time_s with `source: openrecipes plan (calibrated speed model; not measured)`.
/// Every scalar goes through yaml_scalar. `openrecipes validate` accepts the draft outside
/// recipes/ and reports it (rule status.planned) inside.
std::string planned_recipe_yaml(const ExportSource& source, const LayoutPrediction& prediction,
                                const std::string& run);

/// The draft's `layout.highlights` (what a planned draft says instead of its settings), and the
/// GitHub handle it leaves for the author: `openrecipes finalize` replaces the one and refuses the
/// other.
inline constexpr const char* kPlannedHighlights = "planned by openrecipes plan; not measured";
inline constexpr const char* kPlaceholderHandle = "your-handle";
/// The first sentence of a planned draft's `notes`, which finalize rewrites once it is measured.
inline constexpr const char* kPlannedNotesLead =
    "Planned by openrecipes plan from the layout alone; not measured.";

/// The layout in words, as recipes write `layout.summary` (TP 1, PP 2 (12/12), CP 1, ...).
std::string layout_summary(const ExportSource& source);

}  // namespace openrecipes
