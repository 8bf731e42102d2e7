// The four uses of a recipe's `run` read it alike (issue 14: one reader): validate's run.layout
// rule, measure's step count, classify's training command and export's settings, over the bundled
// recipes' commands and a few tricky ones (Hydra overrides, quotes, `--arg=value`, arrays,
// variables, repeated flags, helper commands). Classify's reading (read_training_command with the
// catalog's rules/arguments.yaml) is the reference; each other use must find the same values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "export/export_source.h"
#include "measure/step_count.h"
#include "runs/argument_rules.h"
#include "runs/training_command.h"
#include "test_support.h"

namespace openrecipes {
namespace {

using testing::bundled_catalog;
using testing::describe;
using testing::read_source_file;
using testing::replace_all;

const std::string kRecipe = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";

const ArgumentRules& catalog_rules() {
  static const ArgumentRules kRules = [] {
    Problems problems;
    std::optional<ArgumentRules> rules = load_argument_rules(testing::source_dir(), problems);
    EXPECT_TRUE(rules) << describe(problems);
    return rules ? *rules : ArgumentRules("", {}, {});
  }();
  return kRules;
}

// One setting validate's run.layout rule checks: its field, the spellings it looks for, whether
// an absent argument means 1, and the value the edited recipe (recipe_text) states.
struct Setting {
  std::string field;
  std::vector<std::string> spellings;
  bool defaults_to_one;
  std::string recipe_value;
};

// The layout of recipe_text: the bundled recipe's, with tp, pp, ep and max tokens changed so that
// a command setting the bundled values disagrees with it.
const std::vector<Setting> kSettings = {
    {"layout.tp", {"--tensor-model-parallel-size", "model.tensor_model_parallel_size"}, true, "2"},
    {"layout.pp",
     {"--pipeline-model-parallel-size", "model.pipeline_model_parallel_size"},
     true,
     "4"},
    {"layout.cp", {"--context-parallel-size", "model.context_parallel_size"}, true, "1"},
    {"layout.ep", {"--expert-model-parallel-size", "model.expert_model_parallel_size"}, true, "2"},
    {"layout.etp",
     {"--expert-tensor-parallel-size", "model.expert_tensor_parallel_size"},
     true,
     "1"},
    {"layout.dispatcher",
     {"--moe-token-dispatcher-type", "model.moe_token_dispatcher_type"},
     false,
     "alltoall"},
    {"layout.max_tokens_per_gpu", {"--max-tokens-per-gpu"}, false, "4096"},
    {"layout.rows_per_microbatch", {"--micro-batch-size", "train.micro_batch_size"}, false, "1"},
    {"workload.global_batch", {"--global-batch-size", "train.global_batch_size"}, false, "128"},
};

// The recipe with its `run` replaced by `run` and the layout of kSettings.
std::string recipe_text(const std::string& run) {
  std::string text = read_source_file(kRecipe);
  text = replace_all(text, "  tp: 1\n  pp: 2\n", "  tp: 2\n  pp: 4\n");
  text = replace_all(text, "  ep: 4\n", "  ep: 2\n");
  text = replace_all(text, "  max_tokens_per_gpu: 8192\n", "  max_tokens_per_gpu: 4096\n");
  std::size_t begin = text.find("run: |\n");
  std::size_t end = text.find("\nnotes:", begin);
  std::string block = "run: |\n";
  std::size_t from = 0;
  while (from < run.size()) {
    std::size_t newline = run.find('\n', from);
    std::string line = run.substr(from, newline == std::string::npos ? newline : newline - from);
    block += (line.empty() ? "" : "  " + line) + "\n";
    from = newline == std::string::npos ? run.size() : newline + 1;
  }
  block.pop_back();
  return text.substr(0, begin) + block + text.substr(end);
}

// What classify reads for a setting, under the rule's canonical name.
const TrainingArgument* classify_reads(const TrainingCommand& command,
                                       const std::string& spelling) {
  SpellingMatch match = catalog_rules().find_spelling(spelling);
  return command.find(match.rule ? match.rule->name : spelling);
}

// The run rule's problem of `field` (run.layout, or run.microbatch and run.global_batch for the
// micro-batch and global batch), or nullptr.
const Problem* validate_reports(const Problems& problems, const std::string& field) {
  for (const Problem& problem : problems) {
    bool run_rule = problem.rule == "run.layout" || problem.rule == "run.microbatch" ||
                    problem.rule == "run.global_batch";
    if (run_rule && problem.message.rfind(field + ":", 0) == 0) return &problem;
  }
  return nullptr;
}

void expect_validate_agrees(const std::string& run, const TrainingCommand& command,
                            const Problems& problems) {
  for (const Setting& setting : kSettings) {
    const TrainingArgument* read = nullptr;
    for (const std::string& spelling : setting.spellings) {
      if (!read) read = classify_reads(command, spelling);
    }
    // A term the command leaves out may be required or take the framework's default
    // (validate/run_settings.h); the readers are compared where the command states it.
    if (!read && !setting.defaults_to_one) continue;
    const Problem* reported = validate_reports(problems, setting.field);
    bool disagrees = read ? read->value != setting.recipe_value
                          : setting.defaults_to_one && setting.recipe_value != "1";
    EXPECT_EQ(reported != nullptr, disagrees) << setting.field << "\n" << run << describe(problems);
    if (reported && read) {
      EXPECT_EQ(reported->found, read->value) << setting.field << "\n" << run;
    }
  }
}

void expect_measure_agrees(const std::string& run, const TrainingCommand& command) {
  const TrainingArgument* steps = command.find("train_iters");
  if (!steps) steps = command.find("num_rollout");
  ASSERT_NE(steps, nullptr) << run;
  Problems problems;
  std::optional<ForcedStepCount> forced_or_none = force_step_count(run, 20, problems);
  ASSERT_TRUE(forced_or_none) << render_problems(problems, OutputFormat::kText);
  const ForcedStepCount& forced = *forced_or_none;
  EXPECT_EQ(forced.recipe_value, steps->value) << run;
  EXPECT_EQ(classify_reads(command, forced.flag), steps) << forced.flag << "\n" << run;
  // The forced command reads as the same command with the protocol's step count.
  TrainingCommand after = read_training_command(forced.run, catalog_rules());
  ASSERT_EQ(after.arguments.size(), command.arguments.size()) << forced.run;
  for (std::size_t i = 0; i < after.arguments.size(); ++i) {
    const TrainingArgument& a = after.arguments[i];
    EXPECT_EQ(a.name, command.arguments[i].name) << forced.run;
    EXPECT_EQ(a.value, &command.arguments[i] == steps ? "20" : command.arguments[i].value)
        << a.name << "\n"
        << forced.run;
  }
}

void expect_export_agrees(const std::string& run, const TrainingCommand& command,
                          const Recipe& recipe) {
  Problems problems;
  std::optional<ExportSource> source = export_source_from_recipe(
      recipe, kRecipe, bundled_catalog().catalog, catalog_rules(), problems);
  ASSERT_TRUE(source) << render_problems(problems, OutputFormat::kText);
  std::vector<CommandArgument> all = source->training_arguments;
  all.insert(all.end(), source->other_arguments.begin(), source->other_arguments.end());
  all.insert(all.end(), source->slime_only_arguments.begin(), source->slime_only_arguments.end());
  for (const CommandArgument& argument : all) {
    const TrainingArgument* read = classify_reads(command, argument.flag);
    ASSERT_NE(read, nullptr) << argument.flag << "\n" << run;
    EXPECT_EQ(fmt::format("{}", fmt::join(argument.values, " ")), read->valued ? read->value : "")
        << argument.flag << "\n"
        << run;
  }
}

// Runs the four uses over `run`.
void expect_one_reading(const std::string& run) {
  TrainingCommand command = read_training_command(run, catalog_rules());
  ASSERT_TRUE(command.problems.empty()) << run << describe(command.problems);
  RecipeReport report = validate_recipe_text(bundled_catalog(), kRecipe, kRecipe, recipe_text(run));
  ASSERT_TRUE(report.recipe) << describe(report.problems);
  expect_validate_agrees(run, command, report.problems);
  expect_measure_agrees(run, command);
  expect_export_agrees(run, command, *report.recipe);
}

TEST(RunReaders, AgreeOnTheBundledRecipes) {
  for (const std::string& path : testing::kBundledRecipes) {
    RecipeReport report =
        validate_recipe_file(bundled_catalog(), testing::source_dir() + "/" + path);
    ASSERT_TRUE(report.recipe) << describe(report.problems);
    SCOPED_TRACE(path);
    expect_one_reading(report.recipe->run);
  }
}

TEST(RunReaders, AgreeOnTrickyCommands) {
  const std::vector<std::string> kCommands = {
      // Megatron-Bridge overrides, Hydra's `+` and `++` prefixes
      "python scripts/training/run_recipe.py --recipe gpt_oss_20b "
      "model.tensor_model_parallel_size=1 ++model.pipeline_model_parallel_size=2 "
      "+model.expert_model_parallel_size=4 train.train_iters=20 train.global_batch_size=128 "
      "train.micro_batch_size=1 --seed 5678\n",
      // quoted values
      "python3 train.py --tensor-model-parallel-size \"1\" --pipeline-model-parallel-size '2' "
      "--train-iters 20 --lr \"5e-6\" --moe-token-dispatcher-type 'alltoall'\n",
      // --arg=value
      "torchrun --nproc-per-node=8 pretrain_gpt.py --tensor-model-parallel-size=1 "
      "--pipeline-model-parallel-size=4 --train-iters=20 --expert-model-parallel-size=2 "
      "--max-tokens-per-gpu=8192 --optimizer=adam\n",
      // an array defined over several lines, expanded in the command
      "PARALLEL=(\n  --tensor-model-parallel-size 2\n  --pipeline-model-parallel-size 2\n)\n"
      "python3 train.py \"${PARALLEL[@]}\" --num-rollout 20 --seed 1\n",
      // variables, braced and quoted; a `\\`-newline continuation
      "TP=1\nPP=2\nSTEPS=20\n"
      "python3 train.py --tensor-model-parallel-size $TP --pipeline-model-parallel-size ${PP} \\\n"
      "  --train-iters \"$STEPS\" --global-batch-size 128\n",
      // the last occurrence wins
      "python3 train.py --tensor-model-parallel-size 4 --tensor-model-parallel-size 1 "
      "--train-iters 5 --train-iters 20 --micro-batch-size 1\n",
      // helper commands before the launcher's
      "mkdir -p out\nhuggingface-cli download --repo-type model openai/gpt-oss-20b\n"
      "python3 train.py --train-iters 20 --pipeline-model-parallel-size 2 "
      "--expert-model-parallel-size 4 # TP defaults to 1\n",
  };
  for (const std::string& run : kCommands) {
    SCOPED_TRACE(run);
    expect_one_reading(run);
  }
}

// Where the old reader of validate and measure (catalog/run_command) read otherwise: a run that
// no shell reads is reported, not checked word by word.
TEST(RunReaders, ValidateReportsARunNoShellReads) {
  std::string run = "python3 train.py --train-iters 20 --lr '5e-6\n";
  RecipeReport report = validate_recipe_text(bundled_catalog(), kRecipe, kRecipe, recipe_text(run));
  const Problem* problem = nullptr;
  for (const Problem& p : report.problems) {
    if (p.rule == "run.layout" && p.message.find("cannot be read") != std::string::npos)
      problem = &p;
  }
  ASSERT_NE(problem, nullptr) << describe(report.problems);
  EXPECT_NE(problem->message.find("never closed"), std::string::npos) << problem->message;
  std::string text = recipe_text(run);
  int block_line =
      2 + static_cast<int>(std::count(text.begin(), text.begin() + text.find("run: |"), '\n'));
  EXPECT_EQ(problem->position.line, block_line);  // the file's line of the quote
}

}  // namespace
}  // namespace openrecipes
