// Classes of differences and verdicts with the bundled rules: one case per class, unknown
// arguments, component tests, and the Qwen3.5 recipe pairs (recipes/qwen3.5-122b-a10b/h200/).
#include "runs/argument_classifier.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;

const ArgumentRules& rules() {
  static const ArgumentRules* loaded = [] {
    Problems problems;
    std::optional<ArgumentRules> r = load_argument_rules(testing::source_dir(), problems);
    EXPECT_TRUE(r.has_value()) << describe(problems);
    return r ? new ArgumentRules(std::move(*r)) : nullptr;
  }();
  if (!loaded) throw std::runtime_error("rules/arguments.yaml does not load");
  return *loaded;
}

const std::string kReference =
    "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"
    "python3 pretrain_gpt.py \\\n"
    "  --tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 \\\n"
    "  --recompute-granularity full --recompute-method uniform --recompute-num-layers 1 \\\n"
    "  --moe-token-dispatcher-type alltoall --attention-backend flash \\\n"
    "  --lr 1e-5 --seed 1234 --global-batch-size 128 --bf16 \\\n"
    "  --train-iters 20 --log-interval 1 --save /ckpt\n";

// The reference with `from` replaced by `to`.
Classification classify_edit(
    const std::string& from, const std::string& to,
    const std::optional<std::vector<ComponentTest>>& tests = std::nullopt) {
  std::string candidate = testing::replace_all(kReference, from, to);
  return classify_commands(read_training_command(candidate, rules()),
                           read_training_command(kReference, rules()), rules(), tests);
}

ComponentTest test_named(const std::string& name, const std::string& result) {
  return {name, "one MoE layer", "H200", "2026-10-13", result, "errors within bound"};
}

TEST(ArgumentClassifier, TheSameCommandIsTheSame) {
  Classification same = classify_edit("--seed 1234", "--seed 1234.0");  // the same number
  EXPECT_TRUE(same.differences.empty());
  EXPECT_EQ(same.verdict, Verdict::kSame);
  EXPECT_TRUE(same.passes());
  EXPECT_EQ(same.verdict_text(), "same");
}

TEST(ArgumentClassifier, PlacementRecomputeAndOverlapAreExecution) {
  Classification result =
      classify_edit("--recompute-num-layers 1", "--recompute-num-layers 2 --overlap-grad-reduce");
  ASSERT_EQ(result.differences.size(), 2u);
  EXPECT_EQ(result.differences[0].argument_class, ArgumentClass::kExecution);
  EXPECT_EQ(result.differences[0].difference.name, "overlap_grad_reduce");
  EXPECT_FALSE(result.differences[0].difference.reference.has_value());
  EXPECT_EQ(result.differences[0].difference.candidate, "true");
  EXPECT_EQ(result.differences[1].difference.name, "recompute_num_layers");
  EXPECT_EQ(result.differences[1].difference.reference, "1");
  EXPECT_EQ(result.differences[1].difference.candidate, "2");
  EXPECT_EQ(result.verdict, Verdict::kExecutionOnly);
  EXPECT_TRUE(result.passes());

  Classification env = classify_edit("export CUDA_DEVICE_MAX_CONNECTIONS=1",
                                     "export CUDA_DEVICE_MAX_CONNECTIONS=32");
  ASSERT_EQ(env.differences.size(), 1u);
  EXPECT_EQ(env.differences[0].difference.kind, DifferenceKind::kEnvironment);
  EXPECT_EQ(env.differences[0].argument_class, ArgumentClass::kExecution);
  EXPECT_EQ(env.verdict, Verdict::kExecutionOnly);
}

// Layer placement maps the same training onto the pipeline stages: the layout string, the
// account-for switches and the first/last stage layers are execution arguments, as
// --pipeline-model-parallel-size is (rules/arguments.yaml).
TEST(ArgumentClassifier, PipelinePlacementIsExecutionLikeThePipelineSize) {
  Classification size =
      classify_edit("--pipeline-model-parallel-size 4", "--pipeline-model-parallel-size 8");
  ASSERT_EQ(size.differences.size(), 1u);

  // Two runs that differ only in the layout string: Qwen3.5's 48 layers on PP 4, evenly and
  // with one layer moved from the first stage (which also holds the embedding) to the last.
  const std::string even = "--pipeline-model-parallel-layout 'Et*12|t*12|t*12|t*12L'";
  const std::string moved = "--pipeline-model-parallel-layout 'Et*11|t*12|t*12|t*13L'";
  std::string reference = testing::replace_all(kReference, "--pipeline-model-parallel-size 4",
                                               "--pipeline-model-parallel-size 4 " + even);
  std::string candidate = testing::replace_all(reference, even, moved);
  Classification layout =
      classify_commands(read_training_command(candidate, rules()),
                        read_training_command(reference, rules()), rules(), std::nullopt);
  ASSERT_EQ(layout.differences.size(), 1u);
  EXPECT_EQ(layout.differences[0].difference.name, "pipeline_model_parallel_layout");
  EXPECT_EQ(layout.differences[0].difference.reference, "Et*12|t*12|t*12|t*12L");
  EXPECT_EQ(layout.differences[0].difference.candidate, "Et*11|t*12|t*12|t*13L");
  EXPECT_EQ(layout.differences[0].argument_class, size.differences[0].argument_class);
  EXPECT_EQ(layout.differences[0].argument_class, ArgumentClass::kExecution);
  EXPECT_EQ(layout.verdict, Verdict::kExecutionOnly);
  EXPECT_TRUE(layout.passes());

  // A layout string in place of an even split, the account-for switches and the first/last
  // stage layers: each an execution difference.
  for (const std::string& placement :
       {even, std::string("--account-for-embedding-in-pipeline-split"),
        std::string("--account-for-loss-in-pipeline-split"),
        std::string(
            "--decoder-first-pipeline-num-layers 11 --decoder-last-pipeline-num-layers 13")}) {
    SCOPED_TRACE(placement);
    Classification added = classify_edit("--pipeline-model-parallel-size 4",
                                         "--pipeline-model-parallel-size 4 " + placement);
    ASSERT_FALSE(added.differences.empty());
    for (const auto& difference : added.differences) {
      EXPECT_EQ(difference.argument_class, ArgumentClass::kExecution) << difference.difference.name;
    }
    EXPECT_EQ(added.verdict, Verdict::kExecutionOnly);
  }
}

TEST(ArgumentClassifier, ASameMathSwapNeedsAPassedComponentTest) {
  Classification untested = classify_edit("alltoall", "flex");
  ASSERT_EQ(untested.differences.size(), 1u);
  EXPECT_EQ(untested.differences[0].argument_class, ArgumentClass::kSameMathSwap);
  EXPECT_EQ(untested.differences[0].component, "dispatcher");
  ASSERT_EQ(untested.components.size(), 1u);
  EXPECT_EQ(untested.components[0].status, ComponentCheck::Status::kMissing);
  EXPECT_EQ(untested.verdict, Verdict::kNeedsComponentTests);
  EXPECT_EQ(untested.verdict_text(), "needs component tests: dispatcher");
  EXPECT_FALSE(untested.passes());
  EXPECT_EQ(untested.notes,
            std::vector<std::string>{
                "the candidate is a command, not a recipe: it lists no component tests"});

  Classification failed =
      classify_edit("alltoall", "flex", std::vector{test_named("flex dispatcher vs FP32", "fail")});
  EXPECT_EQ(failed.components[0].status, ComponentCheck::Status::kFailed);
  EXPECT_EQ(failed.verdict, Verdict::kNeedsComponentTests);

  Classification other =
      classify_edit("alltoall", "flex", std::vector{test_named("TE attention vs FP32", "pass")});
  EXPECT_EQ(other.components[0].status, ComponentCheck::Status::kMissing);

  Classification covered =
      classify_edit("alltoall", "flex",
                    std::vector{test_named("flex dispatcher vs FP32 (first try)", "fail"),
                                test_named("Flex-Dispatcher vs FP32", "pass")});
  EXPECT_EQ(covered.components[0].status, ComponentCheck::Status::kPassed);
  EXPECT_EQ(covered.components[0].test, "Flex-Dispatcher vs FP32");
  EXPECT_EQ(covered.verdict, Verdict::kSwapsCovered);
  EXPECT_TRUE(covered.passes());

  Classification fused =
      classify_edit("--bf16", "--bf16 --cross-entropy-loss-fusion --no-rope-fusion");
  ASSERT_EQ(fused.components.size(),
            2u);  // in the table's order: apply_rope_fusion, cross_entropy_loss_fusion
  EXPECT_EQ(fused.components[0].component, "rope");
  EXPECT_EQ(fused.components[0].needed_by, std::vector<std::string>{"apply_rope_fusion"});
  EXPECT_EQ(fused.components[1].component, "cross-entropy");
  EXPECT_EQ(fused.verdict_text(), "needs component tests: rope, cross-entropy");
}

TEST(ArgumentClassifier, ComponentKeywordsMatchTestNamesLoosely) {
  EXPECT_TRUE(component_matches("cross-entropy", "TE cross entropy fusion against native"));
  EXPECT_TRUE(component_matches("grouped gemm", "Grouped_GEMM against a loop of GEMMs"));
  EXPECT_TRUE(component_matches("dispatcher", "flex dispatcher against an FP32 reference"));
  EXPECT_FALSE(component_matches("dispatcher", "flash attention against unfused"));
  EXPECT_FALSE(component_matches("", "anything"));
}

TEST(ArgumentClassifier, OptimizerSeedBatchAndPrecisionAreConvergence) {
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"--lr 1e-5", "--lr 2e-5"},
           {"--seed 1234", "--seed 1"},
           {"--global-batch-size 128", "--global-batch-size 256"},
           {"--bf16", "--fp16"}}) {
    Classification result = classify_edit(from, to);
    ASSERT_FALSE(result.differences.empty()) << to;
    for (const ClassifiedDifference& d : result.differences) {
      EXPECT_EQ(d.argument_class, ArgumentClass::kConvergence) << to << ": " << d.difference.name;
    }
    EXPECT_EQ(result.verdict, Verdict::kConvergenceChange) << to;
    EXPECT_FALSE(result.passes());
  }
  // A convergence change outweighs the execution change beside it.
  Classification mixed = classify_edit("--seed 1234", "--seed 1 --tensor-model-parallel-size 8");
  EXPECT_EQ(mixed.verdict, Verdict::kConvergenceChange);
  EXPECT_EQ(mixed.differences.front().argument_class, ArgumentClass::kConvergence);
  EXPECT_EQ(mixed.verdict_text(), "convergence change: new experiment (seed)");
}

TEST(ArgumentClassifier, PathsLoggingAndRunLengthAreBenign) {
  Classification result = classify_edit("--train-iters 20 --log-interval 1 --save /ckpt",
                                        "--train-iters 14 --log-interval 10 --save /other");
  ASSERT_EQ(result.differences.size(), 3u);
  for (const ClassifiedDifference& d : result.differences) {
    EXPECT_EQ(d.argument_class, ArgumentClass::kBenign) << d.difference.name;
  }
  EXPECT_EQ(result.verdict, Verdict::kBenignOnly);
  EXPECT_TRUE(result.passes());
}

TEST(ArgumentClassifier, UnknownArgumentsVariablesAndProgramsFail) {
  Classification flag = classify_edit("--bf16", "--bf16 --made-up-flag 3");
  ASSERT_EQ(flag.differences.size(), 1u);
  EXPECT_FALSE(flag.differences[0].argument_class.has_value());
  EXPECT_EQ(flag.differences[0].difference.name, "--made-up-flag");
  EXPECT_EQ(flag.verdict, Verdict::kUnknownArguments);
  EXPECT_EQ(flag.verdict_text(), "unknown arguments: fails (--made-up-flag)");
  EXPECT_FALSE(flag.passes());

  Classification variable = classify_edit("export CUDA_DEVICE_MAX_CONNECTIONS=1",
                                          "export CUDA_DEVICE_MAX_CONNECTIONS=1 MY_SECRET_KNOB=1");
  ASSERT_EQ(variable.differences.size(), 1u);
  EXPECT_EQ(variable.differences[0].difference.kind, DifferenceKind::kEnvironment);
  EXPECT_EQ(variable.verdict, Verdict::kUnknownArguments);

  Classification program = classify_edit("pretrain_gpt.py", "pretrain_mamba.py");
  ASSERT_EQ(program.differences.size(), 1u);
  EXPECT_EQ(program.differences[0].difference.kind, DifferenceKind::kProgram);
  EXPECT_EQ(program.verdict, Verdict::kUnknownArguments);

  // Unknown outweighs everything: the check cannot say what the unknown argument does.
  Classification mixed = classify_edit("--seed 1234", "--seed 1 --made-up-flag 3");
  EXPECT_EQ(mixed.verdict, Verdict::kUnknownArguments);
  EXPECT_FALSE(mixed.differences.front().argument_class.has_value());
}

TEST(ArgumentClassifier, ArraysDefinedElsewhereAreNotedOrFail) {
  std::string both = "python3 train.py ${MODEL_ARGS[@]} --seed 1";
  Classification noted =
      classify_commands(read_training_command(both, rules()), read_training_command(both, rules()),
                        rules(), std::nullopt);
  EXPECT_EQ(noted.verdict, Verdict::kSame);
  EXPECT_EQ(noted.notes,
            std::vector<std::string>{
                "MODEL_ARGS is defined outside the command: its arguments are not compared"});

  Classification one_side = classify_commands(
      read_training_command(both, rules()),
      read_training_command("python3 train.py --seed 1", rules()), rules(), std::nullopt);
  ASSERT_EQ(one_side.differences.size(), 1u);
  EXPECT_EQ(one_side.differences[0].difference.kind, DifferenceKind::kExternalArray);
  EXPECT_EQ(one_side.verdict, Verdict::kUnknownArguments);
}

TEST(ArgumentClassifier, ValuesCompareAsNumbersWhenBothAreNumbers) {
  EXPECT_TRUE(same_value("1e-5", "0.00001"));
  EXPECT_TRUE(same_value("8192", "8192.0"));
  EXPECT_FALSE(same_value("1e-5", "1e-6"));
  EXPECT_FALSE(same_value("flex", "alltoall"));
  EXPECT_FALSE(same_value("", "0"));
}

// --- the Qwen3.5 recipe pairs
// ------------------------------------------------------------------------

Recipe bundled_recipe(const std::string& path) {
  Problems problems;
  std::optional<YamlDocument> document =
      parse_yaml(testing::read_source_file(path), path, problems);
  EXPECT_TRUE(document) << describe(problems);
  return document ? recipe_from_yaml(document->root) : Recipe{};
}

Classification classify_recipes(const std::string& candidate_path,
                                const std::string& reference_path) {
  Recipe candidate = bundled_recipe(candidate_path), reference = bundled_recipe(reference_path);
  return classify_commands(read_training_command(candidate.run, rules()),
                           read_training_command(reference.run, rules()), rules(),
                           candidate.correctness.component_tests);
}

const std::string kBase = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml";

TEST(ArgumentClassifier, TheFlexRecipeIsADispatcherSwapItsComponentTestCovers) {
  Classification result =
      classify_recipes("recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml", kBase);
  ASSERT_EQ(result.differences.size(), 3u);
  const ClassifiedDifference& swap = result.differences[0];
  EXPECT_EQ(swap.argument_class, ArgumentClass::kSameMathSwap);
  EXPECT_EQ(swap.difference.name, "moe_token_dispatcher_type");
  EXPECT_FALSE(swap.difference.reference.has_value());  // the base takes the model script's
  EXPECT_EQ(swap.difference.candidate, "flex");
  EXPECT_EQ(swap.component, "dispatcher");
  EXPECT_EQ(result.differences[1].difference.name, "moe_shared_expert_overlap");
  EXPECT_EQ(result.differences[1].argument_class, ArgumentClass::kExecution);
  EXPECT_EQ(result.differences[2].difference.name, "num_rollout");
  EXPECT_EQ(result.differences[2].argument_class, ArgumentClass::kBenign);

  ASSERT_EQ(result.components.size(), 1u);
  EXPECT_EQ(result.components[0].component, "dispatcher");
  EXPECT_EQ(result.components[0].status, ComponentCheck::Status::kPassed);
  EXPECT_EQ(result.components[0].test, "flex dispatcher against an FP32 reference");
  EXPECT_EQ(result.verdict, Verdict::kSwapsCovered);
  EXPECT_TRUE(result.passes());
  EXPECT_EQ(result.notes,
            std::vector<std::string>{
                "MODEL_ARGS is defined outside the command: its arguments are not compared"});

  // Without the flex recipe's component test the same swap fails the check.
  Recipe flex = bundled_recipe("recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml");
  Classification untested =
      classify_commands(read_training_command(flex.run, rules()),
                        read_training_command(bundled_recipe(kBase).run, rules()), rules(),
                        std::vector<ComponentTest>{});
  EXPECT_EQ(untested.verdict, Verdict::kNeedsComponentTests);
}

TEST(ArgumentClassifier, TheRc2RecipeIsExecutionOnlyApartFromTheRunLength) {
  Classification result =
      classify_recipes("recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml", kBase);
  ASSERT_EQ(result.differences.size(), 3u);
  EXPECT_EQ(result.differences[0].difference.name, "moe_shared_expert_overlap");
  EXPECT_EQ(result.differences[0].argument_class, ArgumentClass::kExecution);
  EXPECT_EQ(result.differences[1].difference.name, "recompute_num_layers");
  EXPECT_EQ(result.differences[1].argument_class, ArgumentClass::kExecution);
  const ClassifiedDifference& run_length = result.differences[2];
  EXPECT_EQ(run_length.difference.name, "num_rollout");
  EXPECT_EQ(run_length.argument_class, ArgumentClass::kBenign);
  EXPECT_EQ(run_length.difference.reference, "14");
  EXPECT_EQ(run_length.difference.candidate, "20");
  EXPECT_NE(run_length.reason.find("run length"), std::string::npos);
  EXPECT_TRUE(result.components.empty());
  EXPECT_EQ(result.verdict, Verdict::kExecutionOnly);
  EXPECT_TRUE(result.passes());
}

TEST(ArgumentClassifier, AnUnevaluatedValueIsNotEvaluatedRatherThanAChange) {
  Classification result =
      classify_edit("--tensor-model-parallel-size 2", "--tensor-model-parallel-size $((1+1))");
  ASSERT_EQ(result.differences.size(), 1u);
  EXPECT_FALSE(result.differences[0].argument_class.has_value());
  EXPECT_NE(result.differences[0].reason.find("not evaluated"), std::string::npos);
  EXPECT_EQ(result.verdict, Verdict::kUnknownArguments);
  EXPECT_TRUE(classify_edit("--seed 1234", "--seed ${SEED:-1234}").differences.empty());
}

}  // namespace
}  // namespace openrecipes
