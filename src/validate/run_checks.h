// The groups of run rules, each over one RunView (run_settings.h); check_run_rules
// (recipe_rules.h) reads the command once and runs them in this order. Each rule id is listed in
// schema/recipe.schema.yaml's x-cross-field-rules.
#pragma once

#include "validate/run_settings.h"

namespace openrecipes {

/// Reports what keeps the run from being read as a command (rule run.layout, at the problem's
/// line where the block maps to the file); false when it holds no command to check.
bool run_is_readable(const RunView& run);
/// Reports under `rule` at `setting` when its value (written as `name`) is not the literal integer
/// `expected`, the recipe's `field`: "must be a literal number" or "sets it differently".
void check_stated_integer(const RunView& run, const std::string& rule, const RunSetting& setting,
                          const std::string& field, long long expected, std::string_view name);
/// run.layout: parallel sizes, sequence parallelism, recompute, dispatcher and GPU count agree
/// with the layout and `gpu` (run_rules.cc).
void check_run_layout(const RunView& run);
/// run.placement: the pipeline layout string, the account-for flags and the first/last stage
/// layers agree with the layout (placement_rules.cc).
void check_run_placement(const RunView& run);
/// run.seq_length, run.global_batch, run.precision, run.steps and protocol.deviation
/// (protocol_rules.cc).
void check_protocol_terms(const RunView& run);
/// run.microbatch: dynamic batching, max tokens per GPU and the micro-batch size against the
/// layout (microbatch_rules.cc).
void check_microbatch_terms(const RunView& run);
/// run.model_script: the arrays the run expands but does not define and the recipe's
/// model_script name each other (model_script_rules.cc).
void check_model_script(const RunView& run);
/// run.model_shape: the model sizes the command or model script states agree with models.yaml
/// (model_script_rules.cc).
void check_model_sizes(const RunView& run);
/// run.offload: the optimizer CPU-offload flags agree with layout.offload (microbatch_rules.cc).
void check_offload(const RunView& run);

}  // namespace openrecipes
