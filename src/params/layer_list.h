// A config's per-layer lists (`layer_types`, `mlp_layer_types`, `indexer_types`): one entry per
// decoder layer, each a kind the family knows. One reader, so that every family refuses a bad list
// with the same problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "params/hf_config.h"

namespace openrecipes {

/// The list `key` of `c`, which must hold one entry per decoder layer (`layers` entries), each one
/// of `kinds`. Returns the entries, or an empty list when `c` has no `key` (absent or null).
/// Returns nullopt when reading `key` recorded a problem on `c` (not a list of strings: the caller
/// reports c.problems()), or with one problem added: field `key` when the count is not `layers`
/// ("`key` must list every layer", expected "N entries (num_hidden_layers)", found the count), or
/// field `key[i]` at the first entry not in `kinds` ("unknown layer kind", expected the kinds
/// joined by "or", found the entry quoted).
std::optional<std::vector<std::string>> read_layer_list(const HfConfig& c, const std::string& key,
                                                        std::int64_t layers,
                                                        const std::vector<std::string>& kinds,
                                                        Problems& problems);

}  // namespace openrecipes
