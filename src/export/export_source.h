// What an export starts from, as one plain value: the model, the GPUs, the workload, the layout
// and the training settings, built from a catalog recipe (its own command read with the project's
// shell and argument readers) or from a bare layout (the planner's input). The writers
// (slime_command.h, megatron_lm_command.h, megatron_bridge_recipe.h, planned_recipe.h) read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/catalog.h"
#include "catalog/protocol.h"
#include "catalog/recipe.h"
#include "layout/plan_inputs.h"
#include "params/model_shape.h"
#include "runs/argument_rules.h"

namespace openrecipes {

/// One command-line argument: a `--flag` and the words after it (none for a switch).
struct CommandArgument {
  std::string flag;
  std::vector<std::string> values;
};

/// Everything a recipe draft needs, framework-neutral.
struct ExportSource {
  std::string model_name;  ///< as models.yaml spells it (or the config's model_type)
  std::string model_slug;  ///< recipes/<slug>/; empty for a bare config
  std::string hf_repo;     ///< Hugging Face repository; empty for a bare config
  std::string
      loss_mask;  ///< slime --loss-mask-type: a slime run's own, else models.yaml's; empty: none
  ModelShape shape;

  ClusterShape cluster;   ///< GPU type (with gpus.yaml's rate and instance), GPUs, per node
  PlanWorkload workload;  ///< row tokens, global batch (rows), precision
  Layout layout;          ///< dp and label filled in

  /// The model's architecture arguments in Megatron-LM spelling: the recipe's own MODEL_ARGS
  /// when its command defines them, else written from the shape (model_arguments_from_shape).
  std::vector<CommandArgument> model_arguments;
  bool model_arguments_from_shape = false;
  /// Optimizer, schedule and seed (`--optimizer`, `--lr`, ... `--seed`), Megatron-LM spelling.
  std::vector<CommandArgument> training_arguments;
  /// The rest of the recipe's Megatron-LM arguments (fusions, dropout, routing, precision
  /// options), in command order; layout, batch, step and slime-only arguments left out.
  std::vector<CommandArgument> other_arguments;
  /// Slime-only arguments of the recipe that a Megatron-LM or Megatron-Bridge draft drops.
  std::vector<CommandArgument> slime_only_arguments;
  /// The recipe's layout, batch, step, launcher, checkpoint and data arguments as written: every
  /// writer writes these itself from the layout and workload (a draft names those it does not
  /// write again, export_notes.h).
  std::vector<CommandArgument> replaced_arguments;
  /// The run expands `${MODEL_ARGS[@]}` without defining the array (a model script's arguments),
  /// so model_arguments come from the shape.
  bool model_arguments_outside_run = false;
  /// The recipe's `model_script` (what the array holds, as the recipe states it); none when the
  /// recipe states none.
  std::optional<ModelScript> model_script;
  /// The settings recipe's switches (run_switches()) that a planned draft runs though its flags
  /// did not give them: its prediction assumes them (export_layout_draft). A draft names them
  /// (run_settings_note).
  std::vector<std::string> recipe_run_settings;
  /// The settings recipe's switches a planned draft leaves out because the layout breaks a rule
  /// with them (export_layout_draft), and that rule's problem in words. A draft names them
  /// (run_settings_note).
  std::vector<CommandArgument> dropped_run_settings;
  std::string dropped_run_settings_reason;
  /// Where training_arguments and other_arguments come from, in words (a recipe path, or the
  /// defaults and why).
  std::string settings_source;

  NamedValues env;                   ///< environment variables, in order
  std::vector<std::string> patches;  ///< files under patches/ the model arguments need
  std::optional<Dataset> dataset;    ///< the rows (from the settings recipe); none when unknown

  std::string origin;         ///< the recipe's path, or "planner"
  std::string run_text;       ///< the recipe's `run` as written; empty from a layout
  bool run_is_slime = false;  ///< the recipe's training command is slime's
};

/// Canonical names (rules/arguments.yaml) of the arguments only slime reads.
bool is_slime_only_argument(const std::string& canonical_name);

/// Splits shell words into arguments: each `--flag` starts one and takes the words up to the
/// next flag; words before the first flag (the program) are dropped.
std::vector<CommandArgument> group_arguments(const std::vector<std::string>& words);

/// The source of a catalog recipe: the model and GPU from the catalog (their shape, repository,
/// rate), the layout, workload, env and patches as written, and the settings read from the
/// recipe's own `run` (read_training_command with `rules`). The layout's dp and label are
/// recomputed. Returns nullopt with a Problem (file `path`, field `model` or `gpu.type`) when
/// the recipe's model or GPU is not in the catalog.
std::optional<ExportSource> export_source_from_recipe(const Recipe& recipe, const std::string& path,
                                                      const Catalog& catalog,
                                                      const ArgumentRules& rules,
                                                      Problems& problems);

/// The source of a bare layout on `cluster` under `workload`. The training settings, env, patches
/// and rows are `settings_recipe`'s (a catalog recipe of the same model) when given; else the
/// catalog's Qwen3.5-122B-A10B recipes' optimizer and schedule (recipes/qwen3.5-122b-a10b/h200/),
/// said so in settings_source. `model` may be null for a bare Hugging Face config (then `shape`
/// names it). The layout's dp and label are filled in (the caller has checked it is legal).
ExportSource export_source_from_layout(const ModelShape& shape, const Model* model,
                                       const ClusterShape& cluster, const PlanWorkload& workload,
                                       const Layout& layout, const Recipe* settings_recipe,
                                       const std::string& settings_path,
                                       const ArgumentRules& rules);

/// The model's architecture arguments in Megatron-LM spelling from its shape: layers, hidden,
/// FFN, heads and query groups, head size, vocabulary, RMSNorm and rope, experts and routing.
std::vector<CommandArgument> model_arguments_from_shape(const ModelShape& shape);

/// The function-name stem of a model: lowercase, '.' dropped, '-' to '_' (gpt-oss-20b gives
/// gpt_oss_20b, Qwen3.5-122B-A10B gives qwen35_122b_a10b); a leading digit gets an `m` prefix.
std::string model_identifier(const std::string& model_name);

}  // namespace openrecipes

namespace openrecipes {

/// `word` as one shell word: as is when it holds only safe characters or is one `$(...)`
/// substitution; `"$NAME"` for a variable; else single-quoted.
std::string shell_word(const std::string& word);

/// `--flag value...` with each value through shell_word.
std::string argument_text(const CommandArgument& argument);

/// The layout's Megatron-LM arguments, in the Qwen3.5 recipes' order
/// (recipes/qwen3.5-122b-a10b/h200/): TP, PP, CP, EP, ETP, the placement
/// (--pipeline-model-parallel-layout for a pipeline_layout, which carries the virtual stages,
/// else --num-virtual-stages-per-pipeline-rank when vpp > 1; first/last stage layers for a
/// layer_split; the --account-for-*-in-pipeline-split switches), --sequence-parallel, recompute,
/// offload, and the dispatcher for an MoE model. Flag names: megatron/training/arguments.py.
std::vector<CommandArgument> layout_arguments(const ExportSource& source);

/// The layout in words for a draft's comment: `TP1 PP2 EP4 DP4 on 8 x H200`.
std::string layout_headline(const ExportSource& source);

}  // namespace openrecipes
