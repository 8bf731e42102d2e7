// What `plan`, `recommend` and `export --layout` are asked on the command line, resolved against
// the catalog and checked in one place: the model, the GPU type and count (whole nodes), the
// precision, the memory headroom, and a layout (its text, the dispatcher default, DP against the
// implied W / (TP x PP x CP), and every layout rule of docs/planner.md). The three commands call
// resolve_plan_request, so they refuse the same bad input with the same Problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/catalog.h"
#include "catalog/protocol.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"
#include "plan/memory_model.h"
#include "plan/run_setting_flags.h"

namespace openrecipes {

/// A model named on the command line: a catalog model's name or slug (case-insensitive), or a
/// path to a Hugging Face config.json (or a folder holding one).
struct ModelChoice {
  std::string name;
  std::string family;  ///< models.yaml's family; empty for a config
  ModelShape shape;
  bool in_catalog = false;
};

/// The catalog model whose name or slug is `text` (case-insensitive), or nullptr.
const Model* find_catalog_model(const Catalog& catalog, const std::string& text);

/// Resolves `text` as above. Returns nullopt and adds a Problem (field `--model`) naming the
/// catalog's models for an unknown name, or the config's own problems (file:line: field).
std::optional<ModelChoice> resolve_model(const Catalog& catalog, const std::string& text,
                                         Problems& problems);

/// Resolves a GPU type (gpus.yaml `type` or `slug`, case-insensitive). Returns nullptr and adds a
/// Problem (field `--gpu`) listing the known types.
const Gpu* resolve_gpu(const Catalog& catalog, const std::string& text, Problems& problems);

/// Parses --precision: "bf16", "fp8", "mxfp8" or "nvfp4"; else nullopt and a Problem (field
/// `--precision`).
std::optional<Precision> resolve_precision(const std::string& text, Problems& problems);

/// True when `gpu` has tensor cores for `precision` (gpus.yaml states a dense peak for it: MXFP8
/// and NVFP4 are Blackwell's); else false and a Problem (field `--precision`, rule
/// arguments.precision) naming the GPU and the missing peak.
bool check_precision_on_gpu(Precision precision, const Gpu& gpu, Problems& problems);

/// The cluster of `gpus` GPUs of `gpu`, `per_node` per node (0: gpus.yaml's). Whole nodes only:
/// a count above one node must be a multiple of the GPUs per node, else nullopt and a Problem
/// (field `--gpus`).
std::optional<ClusterShape> resolve_cluster(const Gpu& gpu, int gpus, int per_node,
                                            Problems& problems);

/// A layout as given on the command line (`plan --layout`, `export --layout`).
struct LayoutArguments {
  std::string layout;  ///< "TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1"; empty: no layout given
  std::string recompute = "none";
  std::string layer_split;  ///< "FIRST,LAST" or empty
  std::string dispatcher;   ///< empty: alltoall for a MoE model
  /// --pipeline-layout: Megatron-LM's --pipeline-model-parallel-layout string; empty: none
  std::string pipeline_layout;
  bool account_for_embedding = false;  ///< --account-for-embedding-in-pipeline-split
  bool account_for_loss = false;       ///< --account-for-loss-in-pipeline-split
};

/// Parses the arguments into a layout of `model` on `cluster` (layout_text.h forms; a dispatcher
/// must be alltoall, flex or allgather, field `--dispatcher`; it defaults to alltoall for a MoE
/// model and is cleared for a dense one; a --pipeline-layout must parse, field
/// `--pipeline-layout`, layout/pipeline_layout.h) and checks it: a DP given in --layout must equal
/// the implied W / (TP x PP x CP), and every layout rule (check_layout) must pass, each broken
/// rule one Problem (field `--layout`, rule id, expected, found). With no placement given
/// (--pipeline-layout, --layer-split, the account-for flags) and PP x VPP not dividing the layers,
/// the layout takes balanced_placement's, and `placement_chosen` (when not null) is set. Returns
/// nullopt when any problem was added.
std::optional<Layout> resolve_layout(const LayoutArguments& arguments, const ModelShape& model,
                                     const ClusterShape& cluster, const PlanWorkload& workload,
                                     Problems& problems, bool* placement_chosen = nullptr);

/// Everything the user's flags say, before it is resolved.
struct PlanArguments {
  std::string model;
  std::string gpu;
  int gpus = 0;
  int per_node = 0;  ///< 0: the GPU type's (gpus.yaml)
  std::int64_t seq_length = kRowTokens;
  std::int64_t global_batch = kGlobalBatchRows;
  std::string precision = "bf16";
  double headroom = 0.10;  ///< fraction of GPU memory kept free, 0 to 0.9
  LayoutArguments layout;  ///< layout.layout empty: no layout given
  RunSettingArguments settings;
};

/// The flags resolved and checked.
struct PlanRequest {
  ModelChoice model;
  const Gpu* gpu = nullptr;  ///< into the catalog
  ClusterShape cluster;
  PlanWorkload workload;
  MemoryOptions memory;
  std::optional<Layout> layout;  ///< set when a layout was given (legal)
  /// Without a layout, the dispatchers the search tries (SearchOptions::dispatchers):
  /// --dispatcher's alone when given; empty: the search's default (alltoall and flex).
  std::vector<std::string> search_dispatchers = {};
  /// The layout's placement was chosen by balanced_placement (none was given and PP x VPP does
  /// not divide the layers).
  bool placement_chosen = false;
  /// The run settings as the flags gave them (the workload holds them resolved): `export` adds
  /// these to its settings recipe's, so it must tell a flag given from a default.
  RunSettingArguments run_settings = {};
};

/// Resolves and checks `arguments` in the order model, GPU, precision, headroom and the flex
/// backend (deepep or hybridep, field `--moe-flex-dispatcher-backend`), whole nodes, no
/// dispatcher or flex backend for a dense model (rule arguments.dispatcher), layout (or,
/// without one, what would leave no layout legal: the two expert overlaps together, field
/// `--moe-shared-expert-overlap`, and a dispatcher other than alltoall beside the shared-expert
/// overlap of a model with shared experts, rule mesh.shared_expert_overlap; then --dispatcher as
/// the search's only dispatcher, field `--dispatcher`, refused as allgather under
/// --overlap-moe-expert-parallel-comm, rule mesh.ep_a2a_overlap); the
/// run settings go into the workload, so every layout rule (mesh.ep_a2a_overlap too) and the
/// speed model see them. Returns nullopt with every problem found (stopping after the first stage
/// that fails).
std::optional<PlanRequest> resolve_plan_request(const Catalog& catalog,
                                                const PlanArguments& arguments, Problems& problems);

}  // namespace openrecipes
