#include "cli/run_setting_options.h"

#include <fmt/format.h>

namespace openrecipes::cli {

std::vector<CLI::Option*> add_run_setting_options(CLI::App& command, RunSettingArguments& settings,
                                                  const char* note) {
  auto describe = [&](const char* setting, const char* by_default) {
    return fmt::format("{} (default {}){}", setting, by_default, note);
  };
  const char* off = "off, as in Megatron-LM";
  return {
      command.add_option("--moe-flex-dispatcher-backend", settings.flex_backend,
                         describe("The flex dispatcher's backend: deepep or hybridep", "deepep")),
      command.add_flag("--tp-comm-overlap", settings.tp_comm_overlap,
                       describe("TP communication overlapped with GEMMs; needs TP > 1", off)),
      command.add_flag("--moe-shared-expert-overlap", settings.shared_expert_overlap,
                       describe("The shared expert computed during the EP all-to-all", off)),
      command.add_flag("--overlap-moe-expert-parallel-comm", settings.ep_a2a_overlap,
                       describe("One micro-batch's EP all-to-all overlapped with another's "
                                "compute (A2A/1F1B; needs EP > 1, no full recompute, VPP when "
                                "PP > 1)",
                                off)),
      command.add_flag("--grad-reduce-in-bf16", settings.grad_reduce_in_bf16,
                       describe("Gradients held and reduce-scattered in BF16",
                                "FP32, as Megatron-LM keeps them under --bf16")),
  };
}

}  // namespace openrecipes::cli
