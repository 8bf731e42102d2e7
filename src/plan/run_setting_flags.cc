#include "plan/run_setting_flags.h"

#include "base/ascii.h"

namespace openrecipes {

bool switch_value_on(std::string_view value) {
  const std::string lower = ascii_lowercase(value);
  return lower != "false" && lower != "0" && lower != "no";
}

const std::vector<RunSwitch>& run_switches() {
  static const std::vector<RunSwitch> switches = {
      {"--tp-comm-overlap", "TP communication overlapped with GEMMs; needs TP > 1",
       "off, as in Megatron-LM", &RunSettingArguments::tp_comm_overlap,
       [](const PlanWorkload& w) { return w.tp_comm_overlap; },
       [](PlanWorkload& w, bool on) { w.tp_comm_overlap = on; }},
      {"--moe-shared-expert-overlap", "The shared expert computed during the EP all-to-all",
       "off, as in Megatron-LM", &RunSettingArguments::shared_expert_overlap,
       [](const PlanWorkload& w) { return w.shared_expert_overlap; },
       [](PlanWorkload& w, bool on) { w.shared_expert_overlap = on; }},
      {"--overlap-moe-expert-parallel-comm",
       "One micro-batch's EP all-to-all overlapped with another's compute (A2A/1F1B; needs EP > "
       "1, no full recompute, VPP when PP > 1)",
       "off, as in Megatron-LM", &RunSettingArguments::ep_a2a_overlap,
       [](const PlanWorkload& w) { return w.ep_a2a_overlap; },
       [](PlanWorkload& w, bool on) { w.ep_a2a_overlap = on; }},
      // Megatron-LM keeps FP32 gradients under --bf16 unless this flag (validate_args,
      // megatron/training/arguments.py).
      {"--grad-reduce-in-bf16", "Gradients held and reduce-scattered in BF16",
       "FP32, as Megatron-LM keeps them under --bf16", &RunSettingArguments::grad_reduce_in_bf16,
       [](const PlanWorkload& w) { return !w.grad_reduce_in_fp32; },
       [](PlanWorkload& w, bool on) { w.grad_reduce_in_fp32 = !on; }},
  };
  return switches;
}

std::vector<std::string> run_setting_flags(const PlanWorkload& workload, bool with_backend) {
  std::vector<std::string> flags;
  for (const RunSwitch& s : run_switches())
    if (s.on(workload)) flags.push_back(s.flag);
  if (with_backend && workload.hybridep) flags.push_back("--moe-flex-dispatcher-backend hybridep");
  return flags;
}

void add_given_run_settings(const RunSettingArguments& given, PlanWorkload& workload) {
  for (const RunSwitch& s : run_switches())
    if (given.*s.given) s.set(workload, true);
  if (!given.flex_backend.empty()) workload.hybridep = given.flex_backend == "hybridep";
}

}  // namespace openrecipes
