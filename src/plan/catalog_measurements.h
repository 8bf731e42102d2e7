// The catalog's verified recipes as measured layouts: what the speed model is calibrated on and
// what `plan` and `recommend` show beside their predictions.
#pragma once

#include <vector>

#include "catalog/catalog.h"
#include "catalog/ranking.h"
#include "plan/speed_calibration.h"

namespace openrecipes {

/// Every verified recipe of `recipes` whose model and GPU type the catalog knows, as a
/// MeasuredLayout (name = its catalog path, cluster = its GPU type, count and node size, workload
/// = its row tokens, global batch and precision, and the TP and shared-expert overlaps its `run`
/// command switches on (--tp-comm-overlap, --moe-shared-expert-overlap), layout with dispatcher,
/// the measured score).
/// Unverified recipes are left out, as rank_recipes leaves them out.
std::vector<MeasuredLayout> measured_layouts(const Catalog& catalog,
                                             const std::vector<CatalogRecipe>& recipes);

/// The cluster a catalog GPU type gives: the type's figures, `gpus` GPUs, `per_node` per node
/// (0: the type's own per_node from gpus.yaml).
ClusterShape cluster_of(const Gpu& gpu, int gpus, int per_node = 0);

}  // namespace openrecipes
