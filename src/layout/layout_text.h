// A layout written on the command line: `TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1`, `full:uniform:1`,
// `11,10`. Sizes in the catalog's label style (figures/layout_label.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/problem.h"
#include "catalog/recipe.h"

namespace openrecipes {

/// Parses space-separated sizes TP, PP, VPP, CP, EP, ETP, DP and MBS (rows per micro-batch), each
/// a name and a positive integer (`TP2`, case-insensitive); any size omitted is 1. DP, when given,
/// is kept for the caller to check against the implied W / (TP x PP x CP). Sets sequence_parallel
/// = TP > 1, rows_per_microbatch = MBS, max_tokens_per_gpu = MBS x row_tokens / CP (rounded up),
/// no recompute, no layer split, dispatcher alltoall when EP > 1. Returns nullopt and adds a
/// Problem (field `--layout`, rule `arguments.layout`, the word found and what was expected) for
/// an unknown word, a repeated size, a size that is not a positive integer, or an empty text.
std::optional<Layout> parse_layout_text(const std::string& text, std::int64_t row_tokens,
                                        Problems& problems);

/// Parses a recompute setting: `none`, `selective` (core_attn), `selective:MODULE,...` (names of
/// kRecomputeModules, Megatron-LM's --recompute-modules; a repeat is dropped), `full` (uniform, 1
/// layer), `full:uniform:N` or `full:block:N` (N >= 1). Returns nullopt inside the optional for
/// `none`; nullopt overall with a Problem (field `--recompute`) for anything else, an unknown
/// module included.
std::optional<std::optional<Recompute>> parse_recompute_text(const std::string& text,
                                                             Problems& problems);

/// Parses a layer split `FIRST,LAST` (layers on the first and last pipeline stages, each >= 1).
/// Returns nullopt with a Problem (field `--layer-split`) for anything else.
std::optional<LayerSplit> parse_layer_split_text(const std::string& text, Problems& problems);

/// The layout in the `--layout` form, every size written: `TP1 PP4 VPP1 CP1 EP8 ETP1 MBS1`.
std::string layout_text(const Layout& layout);

/// The layout's placement in a few words: "" for the even split, "split 15,14" (layer_split),
/// "account for embedding and loss" (the account-for flags), "layout Et*3|(t*4|)*14,ttL" (an
/// explicit pipeline_layout).
std::string placement_text(const Layout& layout);

/// The layout's placement as the flags `plan`, `recommend` and `export` read: "" for the even
/// split, " --layer-split 15,14", " --account-for-embedding-in-pipeline-split" and/or
/// " --account-for-loss-in-pipeline-split", " --pipeline-layout 'Et*3|(t*4|)*14,ttL'".
std::string placement_flags_text(const Layout& layout);

/// The recompute setting in the form parse_recompute_text reads (`none`, `selective`,
/// `selective:mla_up_proj,mlp`, `full:uniform:1`).
std::string recompute_text(const std::optional<Recompute>& recompute);

}  // namespace openrecipes
