// What a draft does not carry, said in its own comment lines: the arguments of the recipe's run
// that a writer drops or writes from the layout instead, the rows and loss mask, the layer spec
// and the patches. Every writer (slime_command.h, megatron_lm_command.h,
// megatron_bridge_recipe.h) names each of them rather than drop it silently.
#pragma once

#include <string>
#include <vector>

#include "export/export_source.h"

namespace openrecipes {

/// `text` as comment lines of at most about 100 columns: each starts with `indent` and "# ";
/// words are never split, a word longer than a line gets a line of its own. Empty text: "".
std::string comment_lines(const std::string& text, const std::string& indent = "");

/// The note on a planned draft's run settings, as comment lines starting with `indent`: the
/// settings recipe's switches it runs though export was not given them ("Run settings from the
/// settings recipe, not given to export: ...; the prediction assumes them, as plan does only when
/// they are given") and those it leaves out ("Not carried: ..., which the settings recipe runs:
/// this layout is not legal with it (<rule>: <why>)"); "" when neither.
std::string run_settings_note(const ExportSource& source, const std::string& indent = "");

/// The arguments as one line of words: `--a 1 --b`, values as written (no shell quoting).
std::string arguments_words(const std::vector<CommandArgument>& arguments);

/// The arguments of `recipe` that `written` does not hold with the same flag and values, in
/// `recipe`'s order.
std::vector<CommandArgument> not_written(const std::vector<CommandArgument>& recipe,
                                         const std::vector<CommandArgument>& written);

/// The protocol's arguments every writer sets from the workload and layout, in Megatron-LM
/// spelling: --seq-length, layout_arguments, --micro-batch-size, --global-batch-size,
/// --train-iters 20, --bf16 and --use-distributed-optimizer.
std::vector<CommandArgument> protocol_arguments(const ExportSource& source);

/// The model's `--spec` argument among the source's model arguments, or null.
const CommandArgument* spec_argument(const ExportSource& source);

/// Whether the source trains SFT rows with a loss mask: its rows have a build with a
/// `loss_mask` (workload.dataset.build, schema/recipe.schema.yaml), or its command has slime's
/// `--loss-type sft_loss`.
bool is_sft(const ExportSource& source);

/// The rows in words: `the rows gptoss-tulu3-fixed8192-v1 (6400 rows of 8192 tokens built by
/// openrecipes rows build, loss mask gpt_oss, rows_sha256 de2b...)`; without a dataset,
/// `the recipe's rows (no workload.dataset to name them)`.
std::string rows_words(const ExportSource& source);

/// What the recipe's `model_script` says the undefined array holds, as a sentence: `The recipe's
/// model_script says MODEL_ARGS is NAME; it sets --num-layers 48 --hidden-size 3072 ...`; "" when
/// the recipe states none (schema/recipe.schema.yaml, model_script).
std::string model_script_words(const ExportSource& source);

/// The variables the recipe's run reads but neither sets nor exports (`$HF_CKPT`, `${SFT_DATA}`),
/// each once, in order of first use; MODEL_ARGS is left out.
std::vector<std::string> unset_variables(const std::string& run_text);

}  // namespace openrecipes
