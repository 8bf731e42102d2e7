// The measured run's stack (the recipe's `stack` block): a small Python program the job runs
// first, inside the training environment, prints one `key: value` line per component it finds;
// this file writes that program and reads its output back into the block's fields.
#pragma once

#include <string>
#include <string_view>

#include "catalog/recipe.h"
#include "measure/step_count.h"

namespace openrecipes {

/// What a component is called when the dump could not find it (the schema's wording).
inline constexpr const char* kNotPinned = "not pinned";

/// The Python 3 program that prints the versions: `python`, `pytorch`, `cuda` (PyTorch's build),
/// `nccl` (PyTorch's), `transformer_engine`, `megatron_core` and `megatron_lm_commit` (git, from
/// the installed package's folder), `slime` and `slime_commit`, `megatron_bridge`. A component it
/// cannot import is left out; it never fails.
std::string stack_versions_program();

/// The `stack` fields from the program's output, in the schema's order: framework (named for
/// `framework`, with its version and commit; kUnknown reads as Megatron-LM), megatron_lm (commit
/// and megatron-core version), transformer_engine, pytorch, cuda, nccl, python, then source.
/// Unknown values are "not pinned". Lines that are not `key: value` are ignored; values are cut to
/// 200 characters and stripped of control characters.
NamedValues parse_stack_versions(std::string_view dump, RunFramework framework);

/// `stack:` and one line per field, each value a YAML scalar (quoted where YAML would type it:
/// `cuda: '12.9'`).
std::string stack_block_yaml(const NamedValues& stack);

}  // namespace openrecipes
