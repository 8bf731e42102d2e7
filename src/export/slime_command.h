// A slime command (the bundled recipes' form) for an export source.
#pragma once

#include <string>

#include "export/export_source.h"

namespace openrecipes {

/// The slime command for `source`. From a recipe whose training command is slime's, the recipe's
/// own `run`, normalised (trailing blanks and blank lines dropped, one final newline): that is
/// what ran, under comment lines naming what the command alone does not carry (an undefined
/// MODEL_ARGS, the recipe's patches, `<...>` placeholders to fill, variables it reads but does
/// not set); a run with none of them is returned as is. Otherwise a command in the Qwen3.5 recipes'
/// form (recipes/qwen3.5-122b-a10b/h200/): the MODEL_ARGS array, the exports, then `python3 -m
/// <slime entry module>` with its arguments one per line in the bundled recipes' order (placement,
/// checkpoint, data, rollout and batch, SFT loss, layout, dynamic batch, optimizer, the rest).
/// Paths are variables ($HF_CKPT, $TORCH_DIST, $SFT_DATA), with the same comment lines above
/// MODEL_ARGS.
std::string slime_command(const ExportSource& source);

}  // namespace openrecipes
