// The arguments that set a workload's precision, the same in the three frameworks a draft is for:
// Megatron-LM's flags (slime passes them through to Megatron-LM) and Megatron-Bridge's
// mixed-precision preset of the same settings.
#pragma once

#include <string>
#include <vector>

#include "export/export_source.h"
#include "layout/plan_inputs.h"

namespace openrecipes {

/// Megatron-LM's flags for `precision` after `--bf16` (megatron/training/arguments.py, the
/// Transformer-Engine group), mirroring Megatron-Bridge's presets of precision_preset():
/// bf16: none; fp8: `--fp8-format hybrid --fp8-recipe tensorwise` (per-tensor current scaling);
/// mxfp8: `--fp8-format e4m3 --fp8-recipe mxfp8 --fp8-param-gather
/// --reuse-grad-buf-for-mxfp8-param-ag`; nvfp4: `--fp4-format e2m1 --fp4-recipe nvfp4`.
std::vector<CommandArgument> precision_arguments(Precision precision);

/// Megatron-Bridge's `cfg.mixed_precision` preset for `precision`
/// (src/megatron/bridge/training/mixed_precision.py): bf16_mixed,
/// bf16_with_fp8_current_scaling_mixed, bf16_with_mxfp8_mixed or bf16_with_nvfp4_mixed.
std::string precision_preset(Precision precision);

}  // namespace openrecipes
