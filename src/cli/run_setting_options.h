// The run's communication settings as flags, under Megatron-LM's names, for every command that
// predicts a layout (plan, export, tune propose): one definition, so they read and mean the same.
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

#include "plan/run_setting_flags.h"

namespace openrecipes::cli {

/// Adds --moe-flex-dispatcher-backend (deepep or hybridep, checked by resolve_plan_request) and
/// each switch of run_switches() (--tp-comm-overlap, --moe-shared-expert-overlap,
/// --overlap-moe-expert-parallel-comm, --grad-reduce-in-bf16) to `command`, each writing its
/// field of `settings` (which must outlive the parse). Every one defaults to Megatron-LM's default
/// (off; FP32 gradients under --bf16). `note` ends each description in --help ("" or, for export,
/// that they add to its settings recipe's). Returns the options, in that order.
std::vector<CLI::Option*> add_run_setting_options(CLI::App& command, RunSettingArguments& settings,
                                                  const char* note);

}  // namespace openrecipes::cli
