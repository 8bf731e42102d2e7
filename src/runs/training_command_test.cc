// Training commands under canonical names: Megatron-LM, slime and Megatron-Bridge spellings of a
// setting read as one, with switches, negations, `--flag=value` and multi-word values.
#include "runs/training_command.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

// A few rules of each kind, as rules/arguments.yaml writes them.
ArgumentRules small_rules() {
  auto rule = [](std::string name, std::vector<std::string> spellings, ArgumentTakes takes,
                 std::vector<std::string> negations = {}) {
    ArgumentRule r;
    r.name = std::move(name);
    r.argument_class = ArgumentClass::kExecution;
    r.spellings = std::move(spellings);
    r.negations = std::move(negations);
    r.takes = takes;
    r.reason = "test";
    return r;
  };
  return ArgumentRules(
      "rules.yaml",
      {rule("tensor_model_parallel_size",
            {"--tensor-model-parallel-size", "model.tensor_model_parallel_size"},
            ArgumentTakes::kValue),
       rule("sequence_parallel", {"--sequence-parallel", "model.sequence_parallel"},
            ArgumentTakes::kSwitch),
       rule("apply_rope_fusion", {"model.apply_rope_fusion"}, ArgumentTakes::kSwitch,
            {"--no-rope-fusion"}),
       rule("global_batch_size", {"--global-batch-size", "train.global_batch_size"},
            ArgumentTakes::kValue),
       rule("moe_aux_loss_coeff", {"--moe-aux-loss-coeff"}, ArgumentTakes::kValues),
       rule("mixed_precision", {"mixed_precision"}, ArgumentTakes::kValue)},
      {});
}

std::string value_of(const TrainingCommand& command, const std::string& name) {
  const TrainingArgument* argument = command.find(name);
  return argument ? argument->value : "(absent)";
}

TEST(TrainingCommand, MegatronAndBridgeSpellingsReadAsOneSetting) {
  ArgumentRules rules = small_rules();
  TrainingCommand megatron = read_training_command(
      "torchrun --nproc_per_node=8 pretrain_gpt.py --tensor-model-parallel-size 2 "
      "--sequence-parallel "
      "--no-rope-fusion --global-batch-size=128",
      rules);
  TrainingCommand bridge = read_training_command(
      "torchrun --nproc_per_node=8 run_recipe.py model.tensor_model_parallel_size=2 "
      "model.sequence_parallel=True "
      "'model.apply_rope_fusion=false' +train.global_batch_size=128 mixed_precision=bf16_mixed",
      rules);
  for (const TrainingCommand* command : {&megatron, &bridge}) {
    EXPECT_EQ(value_of(*command, "tensor_model_parallel_size"), "2");
    EXPECT_EQ(value_of(*command, "sequence_parallel"), "true");
    EXPECT_EQ(value_of(*command, "apply_rope_fusion"), "false");
    EXPECT_EQ(value_of(*command, "global_batch_size"), "128");
  }
  EXPECT_EQ(megatron.find("tensor_model_parallel_size")->spelling, "--tensor-model-parallel-size");
  EXPECT_EQ(bridge.find("tensor_model_parallel_size")->spelling,
            "model.tensor_model_parallel_size");
  EXPECT_EQ(value_of(bridge, "mixed_precision"), "bf16_mixed");
  EXPECT_EQ(megatron.program, "torchrun pretrain_gpt.py");
}

TEST(TrainingCommand, TheLastOccurrenceWinsAsInArgparse) {
  TrainingCommand command = read_training_command(
      "train --tensor-model-parallel-size 2 --tensor-model-parallel-size 4", small_rules());
  ASSERT_EQ(command.arguments.size(), 1u);
  EXPECT_EQ(command.arguments[0].value, "4");
}

TEST(TrainingCommand, MultiWordValuesAndUnknownFlags) {
  TrainingCommand command = read_training_command(
      "train --moe-aux-loss-coeff 0.01 0.001 --made-up 3 --made-up-switch --sequence-parallel "
      "model.unknown_key=1",
      small_rules());
  EXPECT_EQ(value_of(command, "moe_aux_loss_coeff"), "0.01 0.001");
  const TrainingArgument* made_up = command.find("--made-up");
  ASSERT_NE(made_up, nullptr);
  EXPECT_FALSE(made_up->known);
  EXPECT_EQ(made_up->value, "3");
  EXPECT_EQ(value_of(command, "--made-up-switch"), "true");
  EXPECT_EQ(value_of(command, "sequence_parallel"), "true");
  const TrainingArgument* key = command.find("model.unknown_key");
  ASSERT_NE(key, nullptr);
  EXPECT_FALSE(key->known);
  EXPECT_EQ(key->value, "1");
}

TEST(TrainingCommand, TheCommandWithTheMostOptionsIsTheTrainingCommand) {
  TrainingCommand command = read_training_command(
      "export NCCL_DEBUG=WARN A=1\n"
      "ARGS=(--sequence-parallel --global-batch-size 64)\n"
      "mkdir -p /out --verbose\n"
      "A=2 CUDA_DEVICE_MAX_CONNECTIONS=1 python3 train.py \"${ARGS[@]}\" ${MODEL_ARGS[@]} \\\n"
      "  --tensor-model-parallel-size 8 | tee log.txt\n",
      small_rules());
  EXPECT_EQ(command.program, "python3 train.py");
  EXPECT_EQ(command.line, 4);
  EXPECT_EQ(value_of(command, "global_batch_size"), "64");
  EXPECT_EQ(command.find("global_batch_size")->line, 2);
  EXPECT_EQ(command.find("tensor_model_parallel_size")->line, 5);
  EXPECT_EQ(command.external_arrays, std::vector<std::string>{"MODEL_ARGS"});
  ASSERT_EQ(command.environment.size(), 3u);  // sorted by name; the command's own A=2 wins
  EXPECT_EQ(command.environment[0].name, "A");
  EXPECT_EQ(command.environment[0].value, "2");
  EXPECT_EQ(command.environment[1].name, "CUDA_DEVICE_MAX_CONNECTIONS");
  EXPECT_EQ(command.environment[2].name, "NCCL_DEBUG");
}

TEST(TrainingCommand, AnUndefinedArrayIsNeverAFlagsValue) {
  TrainingCommand command = read_training_command(
      "train --made-up ${MODEL_ARGS[@]} --tensor-model-parallel-size 1", small_rules());
  EXPECT_EQ(value_of(command, "--made-up"), "true");
  EXPECT_EQ(command.external_arrays, std::vector<std::string>{"MODEL_ARGS"});
}

TEST(TrainingCommand, ATextWithoutACommandIsEmpty) {
  TrainingCommand command = read_training_command("# nothing here\nexport A=1\n", small_rules());
  EXPECT_TRUE(command.arguments.empty());
  EXPECT_TRUE(command.program.empty());
  EXPECT_EQ(command.line, 0);
  ASSERT_EQ(command.environment.size(), 1u);
}

TEST(TrainingCommand, MalformedShellIsAProblemWithItsLine) {
  TrainingCommand command = read_training_command(
      "python3 train.py \\\n  --tensor-model-parallel-size 1 --global-batch-size \"8\n",
      small_rules());
  ASSERT_EQ(command.problems.size(), 1u);
  EXPECT_EQ(command.problems[0].position.line, 2);
  EXPECT_TRUE(read_training_command("python3 train.py --global-batch-size 8\n", small_rules())
                  .problems.empty());
}

TEST(TrainingCommand, NoCommandAndNotTextAreProblems) {
  for (std::string text : {std::string(""), std::string("# only a comment\n"),
                           std::string("iteration 1 | loss 2.0\niteration 2 | loss 1.9\n"),
                           std::string("(Actor pid=1) step 0\n(Actor pid=1) step 1\n")}) {
    TrainingCommand command = read_training_command(text, small_rules());
    EXPECT_FALSE(has_command(command)) << text;
    ASSERT_EQ(command.problems.size(), 1u) << text;
    EXPECT_NE(command.problems[0].message.find("no command found"), std::string::npos) << text;
  }
  TrainingCommand binary = read_training_command(std::string("run\n\xff\xfe--x\n"), small_rules());
  ASSERT_EQ(binary.problems.size(), 1u);
  EXPECT_EQ(binary.problems[0].position.line, 2);
  EXPECT_EQ(binary.problems[0].message, "not text: invalid UTF-8 (a binary file?)");
  TrainingCommand nul = read_training_command(std::string("run\0", 4), small_rules());
  ASSERT_EQ(nul.problems.size(), 1u);
  EXPECT_EQ(nul.problems[0].message, "not text: a NUL byte (a binary file?)");
  EXPECT_TRUE(has_command(read_training_command("python3 train.py\n", small_rules())));
}

TEST(TrainingCommand, TheLauncherIsPreferredAndTiesAreProblems) {
  TrainingCommand command = read_training_command(
      "huggingface-cli download --repo a --local-dir b --revision c\n"
      "torchrun train.py --tensor-model-parallel-size 2\n",
      small_rules());
  EXPECT_TRUE(command.problems.empty());
  EXPECT_EQ(command.program, "torchrun train.py");
  EXPECT_EQ(command.other_commands, std::vector<int>{1});
  TrainingCommand tie = read_training_command(
      "torchrun train.py --tensor-model-parallel-size 2\n"
      "torchrun train.py --tensor-model-parallel-size 4\n",
      small_rules());
  ASSERT_EQ(tie.problems.size(), 1u);
  EXPECT_NE(tie.problems[0].message.find("several training commands (lines 1, 2)"),
            std::string::npos);
  EXPECT_TRUE(read_training_command("python3 t.py --seed 1\npython3 t.py --seed 1\n", small_rules())
                  .problems.empty());  // the same command twice
}

TEST(TrainingCommand, OnlyTheEnvironmentInEffectWhenItRunsCounts) {
  TrainingCommand command = read_training_command(
      "export A=1 B=2 C=3\nunset B\npython3 train.py --global-batch-size 8\nexport D=4\n",
      small_rules());
  ASSERT_EQ(command.environment.size(), 2u);
  EXPECT_EQ(command.environment[0].name, "A");
  EXPECT_EQ(command.environment[1].name, "C");
}

TEST(TrainingCommand, HydraAdditionsAndDeletionsAreArguments) {
  TrainingCommand command = read_training_command(
      "python run.py +model.new=1 ++train.global_batch_size=64 ~model.tensor_model_parallel_size\n",
      small_rules());
  EXPECT_EQ(command.program, "python run.py");
  EXPECT_EQ(value_of(command, "model.new"), "1");
  EXPECT_EQ(value_of(command, "global_batch_size"), "64");
  EXPECT_EQ(value_of(command, "tensor_model_parallel_size"), "~deleted");
}

TEST(TrainingCommand, UnevaluatedValuesAreMarked) {
  TrainingCommand command = read_training_command(
      "python3 t.py --tensor-model-parallel-size $((2-1)) --global-batch-size ${GBS:-8}\n",
      small_rules());
  EXPECT_TRUE(command.find("tensor_model_parallel_size")->unevaluated);
  EXPECT_FALSE(command.find("global_batch_size")->unevaluated);
  EXPECT_EQ(value_of(command, "global_batch_size"), "8");
}

TEST(TrainingCommand, ARecipeEnvMergesAndConflictsAreReported) {
  TrainingCommand command =
      read_training_command("export A=1 B=2\npython3 t.py --global-batch-size 8\n", small_rules());
  std::vector<std::string> conflicts =
      merge_recipe_environment(command, {{"A", "1", 10}, {"B", "3", 11}, {"C", "4", 12}});
  ASSERT_EQ(command.environment.size(), 3u);
  EXPECT_EQ(command.environment[1].value, "2");  // the run's export wins
  EXPECT_EQ(command.environment[2].name, "C");
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_NE(conflicts[0].find("env B"), std::string::npos) << conflicts[0];
}

// Read without rules (validate's run.layout rule, measure's step count): each spelling as
// written, a flag taking the next word unless it is an option.
TEST(TrainingCommandWithoutRules, ReadsFlagsAcrossContinuationsWithTheirLines) {
  std::string text =
      "export A=1 B=\"x y\"\n"
      "\n"
      "# a comment --tensor-model-parallel-size 9\n"
      "python3 -m train --async \\\n"
      "  --tensor-model-parallel-size 2 \\\n"
      "  --sequence-parallel \\\n"
      "  --max-tokens-per-gpu=8192 ${MODEL_ARGS[@]}\n";
  ShellScript script = read_shell_script(text);
  ASSERT_EQ(script.exports.size(), 2u);
  EXPECT_EQ(script.exports[1].name, "B");
  EXPECT_EQ(script.exports[1].value, "x y");
  TrainingCommand command = read_training_command(text, no_argument_rules());
  const TrainingArgument* tp = command.find_spelling({"--tensor-model-parallel-size"});
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value, "2");
  EXPECT_EQ(tp->line, 5);
  const TrainingArgument* sp = command.find_spelling({"--sequence-parallel"});
  ASSERT_NE(sp, nullptr);
  EXPECT_FALSE(sp->valued);
  EXPECT_EQ(command.find_spelling({"--max-tokens-per-gpu"})->value, "8192");
  ASSERT_NE(command.find_spelling({"--async"}), nullptr);
  EXPECT_FALSE(command.find_spelling({"--async"})->valued);  // the next word is a flag
  EXPECT_EQ(command.external_arrays, std::vector<std::string>{"MODEL_ARGS"});
}

TEST(TrainingCommandWithoutRules, TheLastOfSeveralSpellingsWins) {
  TrainingCommand command = read_training_command(
      "run --moe-token-dispatcher-type alltoall --moe-token-dispatcher-type flex\n",
      no_argument_rules());
  EXPECT_EQ(command.find_spelling({"--moe-token-dispatcher-type"})->value, "flex");
  TrainingCommand mixed = read_training_command(
      "python run.py model.tensor_model_parallel_size=4 --tensor-model-parallel-size 2\n",
      no_argument_rules());
  EXPECT_EQ(
      mixed.find_spelling({"model.tensor_model_parallel_size", "--tensor-model-parallel-size"})
          ->value,
      "2");
}

TEST(TrainingCommandWithoutRules, ReadsMegatronBridgeOverrides) {
  TrainingCommand command = read_training_command(
      "python scripts/training/run_recipe.py --recipe x model.tensor_model_parallel_size=4 "
      "train.global_batch_size=128 ++train.train_iters=20 NCCL_DEBUG=INFO\n",
      no_argument_rules());
  const TrainingArgument* tp =
      command.find_spelling({"--tensor-model-parallel-size", "model.tensor_model_parallel_size"});
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->value, "4");
  EXPECT_EQ(command.find_spelling({"train.global_batch_size"})->value, "128");
  EXPECT_EQ(command.find_spelling({"train.train_iters"})->value, "20");  // Hydra's `++`
  EXPECT_EQ(command.find_spelling({"--recipe"})->value, "x");  // not the override after it
  EXPECT_EQ(command.find_spelling({"NCCL_DEBUG"}), nullptr);   // upper case: not an override
}

TEST(TrainingCommandWithoutRules, KeepsSubstitutionsWholeAndExpandsVariables) {
  TrainingCommand command = read_training_command(
      "export NCCL_NVLS_ENABLE=$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)\n"
      "TP=2\n"
      "run --x \"$(echo a b)\" --tp $TP --y\n",
      no_argument_rules());
  ASSERT_EQ(command.environment.size(), 1u);
  EXPECT_EQ(command.environment[0].value, "$([ \"$NVLINK_COUNT\" -gt 0 ] && echo 1 || echo 0)");
  EXPECT_EQ(command.find_spelling({"--x"})->value, "$(echo a b)");
  EXPECT_TRUE(command.find_spelling({"--x"})->unevaluated);
  EXPECT_EQ(command.find_spelling({"--x"})->line, 3);
  EXPECT_EQ(command.find_spelling({"--tp"})->value, "2");
}

TEST(TrainingCommandWithoutRules, ASwitchAtTheEndOfACommandTakesNoValueFromTheNext) {
  TrainingCommand command =
      read_training_command("python3 a.py --flag\nb --other 1\n", no_argument_rules());
  EXPECT_FALSE(command.find_spelling({"--flag"})->valued);
  EXPECT_EQ(command.other_commands, std::vector<int>{2});
}

TEST(TrainingCommand, ProblemsAreProblemValues) {
  TrainingCommand command = read_training_command("python3 a.py --x 'open\n", no_argument_rules());
  ASSERT_EQ(command.problems.size(), 1u);
  EXPECT_EQ(command.problems[0].rule, "run.command");
  EXPECT_EQ(command.problems[0].position.line, 1);
  EXPECT_EQ(command.problems[0].position.column, 1);
  TrainingCommand none = read_training_command("", no_argument_rules());
  ASSERT_EQ(none.problems.size(), 1u);
  EXPECT_EQ(none.problems[0].position.line, 0);
  EXPECT_EQ(none.problems[0].position.column, 0);
  EXPECT_FALSE(text_problem("plain text\n").has_value());
}

TEST(TrainingCommand, ListsArgumentsInWrittenOrderWithTheirValueWords) {
  ArgumentRules rules = small_rules();
  TrainingCommand command = read_training_command(
      "python3 t.py --global-batch-size 128 --moe-aux-loss-coeff 0.1 0.2 --sequence-parallel "
      "--tensor-model-parallel-size=2\n",
      rules);
  std::vector<std::string> spellings;
  for (const TrainingArgument* argument : in_written_order(command))
    spellings.push_back(argument->spelling);
  EXPECT_EQ(spellings,
            (std::vector<std::string>{"--global-batch-size", "--moe-aux-loss-coeff",
                                      "--sequence-parallel", "--tensor-model-parallel-size"}));
  EXPECT_EQ(command.find("moe_aux_loss_coeff")->value_words,
            (std::vector<std::string>{"0.1", "0.2"}));
  EXPECT_TRUE(command.find("sequence_parallel")->value_words.empty());
  EXPECT_EQ(command.find("tensor_model_parallel_size")->value_words, std::vector<std::string>{"2"});
}

}  // namespace
}  // namespace openrecipes
