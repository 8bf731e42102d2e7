// A recipe file as a plain typed value: what ran, how it was laid out, what it measured and the
// correctness evidence. Field meanings: schema/recipe.schema.yaml.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/yaml_document.h"

namespace openrecipes {

using NamedValues = std::vector<std::pair<std::string, std::string>>;

/// `gpu`: the GPUs the recipe ran on (count, GPUs per node, memory in GB, instance).
struct RecipeGpu {
  std::string type;
  int memory_gb = 0;
  int count = 0;
  int per_node = 0;
  std::string instance;
};

/// `author`: a GitHub handle, or a tool or team name with its URL.
struct RecipeAuthor {
  std::string github;
  std::string name;
  std::string url;
};

/// `workload.dataset.build`: how the fixed rows were built (rows, tokens per row, seed, hashes).
struct DatasetBuild {
  std::string name;
  std::string tokenizer;
  std::string loss_mask;
  std::int64_t rows = 0;
  std::int64_t row_tokens = 0;
  std::int64_t padding_tokens = 0;
  std::int64_t seed = 0;
  std::string packing;
  std::optional<double> supervised_token_ratio;
  std::string parquet_sha256;
  std::int64_t parquet_bytes = 0;
  std::string builder;
};

/// `workload.dataset`: the source data set and the rows built from it.
struct Dataset {
  std::string name;
  std::string source;
  std::string revision;
  std::string license;
  std::string rows_sha256;
  DatasetBuild build;
};

/// `workload`: what was trained (fixed by the protocol except the dataset build).
struct Workload {
  std::int64_t row_tokens = 0;  ///< tokens per row
  std::string rows;
  std::int64_t global_batch = 0;  ///< rows per step
  std::string precision;
  Dataset dataset;
};

/// `layout.layer_split`: layers on the first and last pipeline stages.
struct LayerSplit {
  int first = 0;  ///< layers on the first pipeline stage
  int last = 0;   ///< layers on the last pipeline stage

  /// Every field equal (C++20 defaulted comparison): the same inputs to the planner.
  bool operator==(const LayerSplit&) const = default;
};

/// `layout.recompute`: activation recomputation (Megatron-LM --recompute-*).
struct Recompute {
  std::string granularity;  ///< full or selective
  std::string method;       ///< uniform or block; empty when null
  std::optional<int> num_layers;
  /// With selective recompute, the modules recomputed (Megatron-LM --recompute-modules, a list of
  /// kRecomputeModules names); empty: Megatron-Core's default, core_attn alone.
  std::vector<std::string> modules = {};

  /// Whether this recompute covers `module` (a kRecomputeModules name): selective with the module
  /// listed (core_attn when the list is empty). Full recompute covers whole layers, not modules.
  bool recomputes_module(std::string_view module) const;

  /// Every field equal (C++20 defaulted comparison): the same inputs to the planner.
  bool operator==(const Recompute&) const = default;
};

/// The modules selective recompute can name, as Megatron-Core's TransformerConfig lists them
/// (recompute_modules, megatron/core/transformer/transformer_config.py): core attention, the MoE
/// experts' activation, the two norms, MLA's up-projections with RoPE, the dense MLP, the whole
/// MoE layer, the shared experts.
inline constexpr std::string_view kRecomputeModules[] = {
    "core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"};

/// `layout.offload`: CPU offload of optimizer state.
struct Offload {
  double optimizer_fraction = 0;
  bool overlap_d2h_h2d = false;

  /// Every field equal (C++20 defaulted comparison): the same inputs to the planner.
  bool operator==(const Offload&) const = default;
};

/// `layout`: the parallel layout (TP/PP/VPP/CP/EP/ETP/DP), recompute, dispatcher.
struct Layout {
  std::string label;
  std::string summary;
  std::string highlights;
  int tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, etp = 1, dp = 1;
  bool sequence_parallel = false;
  std::optional<LayerSplit> layer_split;
  /// `layout.pipeline_layout`: Megatron-LM's --pipeline-model-parallel-layout, the explicit
  /// placement of the embedding (E), decoder layers (t), MTP layers (m) and loss (L) on every
  /// pipeline stage and virtual chunk
  /// (megatron/core/transformer/pipeline_parallel_layer_layout.py); empty when not set.
  std::string pipeline_layout;
  /// `layout.account_for_embedding_in_pipeline_split`: the input embedding counts as one layer
  /// of the first chunk in the even split (Megatron-LM --account-for-embedding-in-pipeline-split).
  bool account_for_embedding_in_pipeline_split = false;
  /// `layout.account_for_loss_in_pipeline_split`: the output layer and loss count as one layer of
  /// the last chunk (Megatron-LM --account-for-loss-in-pipeline-split).
  bool account_for_loss_in_pipeline_split = false;
  std::int64_t max_tokens_per_gpu = 0;  ///< tokens
  int rows_per_microbatch = 1;
  std::optional<Recompute> recompute;
  std::optional<Offload> offload;
  std::string dispatcher;  ///< empty when null

  /// Every field equal (C++20 defaulted comparison): the same inputs to the planner.
  bool operator==(const Layout&) const = default;
};

/// `result.active_params`: N and the model revision it was counted from.
struct ActiveParams {
  std::int64_t count = 0;  ///< N, active parameters per token
  std::string source;
  std::string revision;
};

/// `result`: the measured score (tokens/s per GPU), its derived figures and the scored window.
struct RecipeResult {
  double tokens_per_s_per_gpu = 0;
  double usd_per_million_tokens = 0;
  double step_time_cv_percent = 0;
  std::optional<double> mfu;  ///< fraction of peak, 0..1
  std::string mfu_note;
  ActiveParams active_params;
  std::string measured;  ///< YYYY-MM-DD
  int steps_per_run = 0;
  int window_first = 0;  ///< first scored step, 0-based
  int window_last = 0;   ///< last scored step, inclusive
  std::int64_t window_tokens = 0;
  int runs = 0;
  bool profiler = false;
  double gpu_hours = 0;
  std::string gpu_hours_note;
  /// Every step's time in seconds, step 0 first (`result.step_times_s`); empty when not stated.
  std::vector<double> step_times_s;
  /// How the run departs from the protocol (catalog/protocol.h), in words; empty when it follows
  /// it (the schema's `result.protocol_deviation`).
  std::string protocol_deviation;
};

/// One entry of `correctness.component_tests`: a same-math swap tested at the model's shape.
struct ComponentTest {
  std::string test, shape, gpu, date, result, detail;
};

/// `correctness.convergence`: the 20-step loss comparison with the reference arm.
struct Convergence {
  int steps = 0;
  std::string result;
  /// Pearson correlation of the per-step losses; nullopt when stated null: a constant loss series
  /// has none (`converge` writes null then).
  std::optional<double> correlation;
  double final_loss_difference = 0;
  int pointwise_failures = 0;
  std::optional<double> worst_step_tolerance_ratio;
  std::string note;
  /// Both arms' loss at each step, step 0 first (`losses: {candidate, reference}`); empty when
  /// not stated.
  std::vector<double> candidate_losses, reference_losses;
};

/// `correctness`: the evidence that the recipe trains the same model as its reference.
struct Correctness {
  std::string result;
  std::string summary;
  std::string reference;
  std::string configuration;
  std::vector<ComponentTest> component_tests;
  Convergence convergence;
  std::string rules;
};

/// `model_script`: the settings a run leaves to an array it expands but does not define (slime's
/// `${MODEL_ARGS[@]}`, set by a model script), as the recipe states them.
struct ModelScript {
  std::string name;   ///< the script and its version
  std::string array;  ///< the array's name, `MODEL_ARGS`
  NamedValues sets;   ///< flag (`--num-layers`) -> value as written (`true` for a switch)
};

/// One recipe file, typed.
struct Recipe {
  int schema_version = 0;
  std::string model;
  RecipeGpu gpu;
  RecipeAuthor author;
  std::string status;
  NamedValues stack;  ///< component -> version, in file order
  Workload workload;
  Layout layout;
  RecipeResult result;
  Correctness correctness;
  NamedValues env;  ///< name -> value, in file order
  std::vector<std::string> patches;
  std::string run;
  std::string notes;
  std::optional<ModelScript> model_script;  ///< absent when the run defines every array it expands
};

/// Reads a recipe from its root node, which has already passed recipe.schema.yaml.
Recipe recipe_from_yaml(const YamlNode& root);

}  // namespace openrecipes
