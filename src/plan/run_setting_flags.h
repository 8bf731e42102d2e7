// The run's settings that change the speed and memory models but not the layout (the overlaps,
// the flex dispatcher's backend, the gradients' dtype), as Megatron-LM's flags spell them: one
// table that the command line's options, plan's reports, a recipe's command and export's drafts
// all read, so that a setting is added in one place.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "layout/plan_inputs.h"

namespace openrecipes {

/// The run settings as the command line gives them; all off by default, as in Megatron-LM's
/// arguments (PlanWorkload says what each changes).
struct RunSettingArguments {
  bool tp_comm_overlap = false;        ///< --tp-comm-overlap
  bool shared_expert_overlap = false;  ///< --moe-shared-expert-overlap
  bool ep_a2a_overlap = false;         ///< --overlap-moe-expert-parallel-comm
  std::string flex_backend;            ///< --moe-flex-dispatcher-backend: deepep or hybridep
  bool grad_reduce_in_bf16 = false;    ///< --grad-reduce-in-bf16: BF16 gradients (else FP32)
};

/// A run setting that is a switch: Megatron-LM's flag, off by default.
struct RunSwitch {
  const char* flag;                              ///< "--tp-comm-overlap"
  const char* help;                              ///< what switching it on does, one phrase
  const char* by_default;                        ///< what runs without it
  bool RunSettingArguments::*given;              ///< the field the command line sets
  bool (*on)(const PlanWorkload& workload);      ///< whether `workload` runs with it
  void (*set)(PlanWorkload& workload, bool on);  ///< sets it in `workload`
};

/// The switches, in the order every command writes them: --tp-comm-overlap,
/// --moe-shared-expert-overlap, --overlap-moe-expert-parallel-comm, --grad-reduce-in-bf16.
const std::vector<RunSwitch>& run_switches();

/// Whether a switch's flag written with `value` switches it on: any value but a false one, in any
/// case ("false", Megatron-Bridge's Python "False", "0", "no"), as read_training_command reads a
/// switch; the bare flag (empty value) is on, as a Megatron-LM store_true flag is.
bool switch_value_on(std::string_view value);

/// The flags that give `workload`'s run settings on top of Megatron-LM's defaults: each switch
/// on (run_switches' order), then `--moe-flex-dispatcher-backend hybridep` when the workload runs
/// HybridEP and `with_backend` (a layout that uses the flex dispatcher, or a run's header).
std::vector<std::string> run_setting_flags(const PlanWorkload& workload, bool with_backend);

/// Switches on in `workload` each run setting `given` switches on, and sets the flex backend when
/// `given` names one (deepep or hybridep, as checked by resolve_plan_request); what `given` leaves
/// at its default keeps `workload`'s value. resolve_plan_request applies the flags to
/// Megatron-LM's defaults; `export` to its settings recipe's run settings
/// (apply_recipe_run_settings).
void add_given_run_settings(const RunSettingArguments& given, PlanWorkload& workload);

}  // namespace openrecipes
