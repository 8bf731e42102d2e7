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

/// The SHA-256 (hex) of `model`'s config.json under `catalog`'s root: models whose configs are
/// the same bytes are the same model to the planner, whatever models.yaml calls them. An unreadable
/// file gives "name:" and the model's name, keeping the model distinct.
std::string model_config_digest(const Catalog& catalog, const Model& model);

/// measured_layouts(catalog, recipes) with each distinct measurement once: a recipe measuring the
/// same model config (model_config_digest), cluster, workload (tokens, batch, precision and the
/// overlaps of its command), layout (every field: layout_to_json's and the offload) and score as an
/// earlier one is a renamed copy, the same evidence, and is left out (the first, in `recipes`
/// order, is kept, in its place; a recipe of the model named `keep_model`, when one is among the
/// copies, is kept instead, so that the model a command plans still sees its own measurements).
/// Counting copies would weigh one measurement many times in the calibration and repeat its
/// leave-one-model-out refit for every name (a catalog of 10,000 copies over 500 names took more
/// than ten minutes to calibrate).
std::vector<MeasuredLayout> distinct_measured_layouts(const Catalog& catalog,
                                                      const std::vector<CatalogRecipe>& recipes,
                                                      const std::string& keep_model = "");

/// What the planner reads from `recipes`, as text: for each recipe, in order, its path, status,
/// model, GPU type, count and node size, workload (tokens, batch, precision), layout (every field,
/// recompute and offload included), `run` command and score. measured_layouts,
/// distinct_measured_layouts and the rankings of verified recipes read nothing else from a
/// recipe, so results computed from `recipes` and the catalog's other inputs can be cached under
/// it: an edit to anything else (a comment, the notes, the stack, the correctness evidence) keeps
/// the same text.
std::string measurement_evidence(const std::vector<CatalogRecipe>& recipes);

/// The planner's inputs for recipe `r` of `model` on `gpu`, whatever its status: the model's
/// shape, the cluster (the recipe's GPU count and node size), the workload (row tokens, global
/// batch, precision, and its run's settings by apply_recipe_run_settings) and the layout with the
/// dispatcher defaulted to alltoall under EP, as slime defaults it (Megatron-LM's default is
/// allgather; the schema's run.layout rule makes a MoE recipe's run state it). `name` and
/// `tokens_per_s_per_gpu` are left empty: measured_layouts fills them for a verified recipe.
MeasuredLayout recipe_planner_inputs(const Recipe& r, const Model& model, const Gpu& gpu);

/// Sets in `workload` the run settings the planner models that a recipe's `run` command switches
/// on, under Megatron-LM's flag names: --tp-comm-overlap, --moe-shared-expert-overlap,
/// --overlap-moe-expert-parallel-comm, --moe-flex-dispatcher-backend hybridep, and BF16 gradients
/// (--grad-reduce-in-bf16; FP32 otherwise, as Megatron-LM keeps them under --bf16). The rest of
/// `workload` is kept. Used wherever a prediction stands for a command built from a recipe's, so
/// that the prediction assumes what the command runs.
void apply_recipe_run_settings(const std::string& run, PlanWorkload& workload);

/// The cluster a catalog GPU type gives: the type's figures, `gpus` GPUs, `per_node` per node
/// (0: the type's own per_node from gpus.yaml).
ClusterShape cluster_of(const Gpu& gpu, int gpus, int per_node = 0);

}  // namespace openrecipes
