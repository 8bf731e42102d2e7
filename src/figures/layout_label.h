// The short layout label (`TP1 PP4 EP8 DP8`) and the file-name slug derived from it.
#pragma once

#include <string>

#include "catalog/recipe.h"

namespace openrecipes {

/// The canonical label of a layout: `TP<tp> PP<pp>`, then `VPP<vpp>`, `CP<cp>`, `EP<ep>`,
/// `ETP<etp>` for each size above 1, then `DP<dp>`. The bundled recipes' labels follow it
/// (TP1 PP2 EP4 DP4, TP1 PP4 EP8 DP8).
std::string layout_label(const Layout& layout);

/// The layout part of a recipe's file name: the label without its DP part, lowercased, joined by
/// '-' (TP1 PP4 EP8 DP8 gives tp1-pp4-ep8), as in the submission guide's
/// recipes/<model>/<gpu>/<handle>-<layout>.
std::string layout_slug(const Layout& layout);

}  // namespace openrecipes
