// rules/arguments.yaml: the bundled rules load and know every argument of the bundled recipes;
// a malformed rules file is reported at its file and line.
#include "runs/argument_rules.h"

#include <gtest/gtest.h>

#include <fstream>

#include "runs/training_command.h"
#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;
using testing::source_dir;

const ArgumentRules& bundled_rules() {
  static const ArgumentRules* rules = [] {
    Problems problems;
    std::optional<ArgumentRules> loaded = load_argument_rules(source_dir(), problems);
    EXPECT_TRUE(loaded.has_value()) << describe(problems);
    return loaded ? new ArgumentRules(std::move(*loaded)) : nullptr;
  }();
  if (!rules) throw std::runtime_error("rules/arguments.yaml does not load");
  return *rules;
}

// Loads `text` as a rules file (against the bundled schema) and returns the problems.
Problems load_rules_text(const std::string& text) {
  std::string path = testing::fresh_dir("argument_rules") + "/arguments.yaml";
  std::ofstream(path) << text;
  Problems problems;
  std::optional<ArgumentRules> rules =
      load_argument_rules_file(path, source_dir() + "/schema/arguments.schema.yaml", problems);
  EXPECT_EQ(rules.has_value(), problems.empty());
  return problems;
}

const std::string kTwoRules =
    "arguments:\n"
    "- name: tensor_model_parallel_size\n"
    "  class: execution\n"
    "  spellings: [--tensor-model-parallel-size, model.tensor_model_parallel_size]\n"
    "  reason: placement\n"
    "- name: moe_token_dispatcher_type\n"
    "  class: same_math_swap\n"
    "  spellings: [--moe-token-dispatcher-type]\n"
    "  component: dispatcher\n"
    "  reason: dispatcher\n"
    "environment: []\n";

TEST(ArgumentRules, OneRuleOwnsEverySpellingOfASetting) {
  const ArgumentRules& rules = bundled_rules();
  SpellingMatch megatron = rules.find_spelling("--tensor-model-parallel-size");
  SpellingMatch bridge = rules.find_spelling("model.tensor_model_parallel_size");
  ASSERT_NE(megatron.rule, nullptr);
  EXPECT_EQ(megatron.rule, bridge.rule);
  EXPECT_EQ(megatron.rule->name, "tensor_model_parallel_size");
  EXPECT_EQ(megatron.rule->argument_class, ArgumentClass::kExecution);

  SpellingMatch negation = rules.find_spelling("--no-rope-fusion");
  ASSERT_NE(negation.rule, nullptr);
  EXPECT_TRUE(negation.negated);
  EXPECT_EQ(negation.rule->name, "apply_rope_fusion");
  EXPECT_EQ(negation.rule->component, "rope");

  EXPECT_EQ(rules.find_spelling("--made-up-flag").rule, nullptr);
  ASSERT_NE(rules.find("num_rollout"), nullptr);
  EXPECT_EQ(rules.find("num_rollout")->argument_class, ArgumentClass::kBenign);
  EXPECT_NE(rules.find("num_rollout")->reason.find("run length"), std::string::npos);
}

TEST(ArgumentRules, AnExactVariableWinsOverAPrefixAndTheLongestPrefixWins) {
  ArgumentRules rules("rules.yaml", {},
                      {{"NCCL_*", ArgumentClass::kExecution, "", "transport", {}},
                       {"NCCL_ALGO", ArgumentClass::kConvergence, "", "reduction", {}},
                       {"NCCL_IB_*", ArgumentClass::kBenign, "", "fabric", {}}});
  EXPECT_EQ(rules.find_environment("NCCL_ALGO")->reason, "reduction");
  EXPECT_EQ(rules.find_environment("NCCL_IB_HCA")->reason, "fabric");
  EXPECT_EQ(rules.find_environment("NCCL_DEBUG")->reason, "transport");
  EXPECT_EQ(rules.find_environment("NCCL"), nullptr);
  EXPECT_EQ(rules.find_environment("HOME"), nullptr);
}

TEST(ArgumentRules, KnowEveryArgumentAndVariableOfTheBundledRecipes) {
  for (const std::string& file : testing::kBundledRecipes) {
    Problems problems;
    std::optional<YamlDocument> document =
        parse_yaml(testing::read_source_file(file), file, problems);
    ASSERT_TRUE(document) << describe(problems);
    TrainingCommand command =
        read_training_command(document->root.find("run")->scalar, bundled_rules());
    EXPECT_GT(command.arguments.size(), 20u) << file;
    for (const TrainingArgument& argument : command.arguments) {
      EXPECT_TRUE(argument.known) << file << ": " << argument.spelling;
    }
    for (const TrainingVariable& variable : command.environment) {
      EXPECT_NE(bundled_rules().find_environment(variable.name), nullptr)
          << file << ": " << variable.name;
    }
  }
}

TEST(ArgumentRules, ASmallValidFileLoads) { EXPECT_TRUE(load_rules_text(kTwoRules).empty()); }

TEST(ArgumentRules, ASchemaViolationNamesFileLineAndField) {
  Problems problems =
      load_rules_text(testing::replace_all(kTwoRules, "class: execution", "class: sometimes"));
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_NE(problems[0].file.find("arguments.yaml"), std::string::npos);
  EXPECT_EQ(problems[0].position.line, 3);
  EXPECT_EQ(problems[0].field, "arguments[0].class");
  EXPECT_EQ(problems[0].rule, "schema");
}

TEST(ArgumentRules, ASpellingInTwoRulesIsReportedAtTheSecond) {
  Problems problems = load_rules_text(
      testing::replace_all(kTwoRules, "[--moe-token-dispatcher-type]",
                           "[--moe-token-dispatcher-type, model.tensor_model_parallel_size]"));
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].rule, "rules.unique");
  EXPECT_EQ(problems[0].position.line, 8);
  EXPECT_EQ(problems[0].field, "arguments[1].spellings[1]");
  EXPECT_NE(problems[0].message.find("already used at line 4"), std::string::npos)
      << problems[0].message;
}

TEST(ArgumentRules, AComponentBelongsToSameMathSwapsOnly) {
  Problems missing =
      load_rules_text(testing::replace_all(kTwoRules, "  component: dispatcher\n", ""));
  ASSERT_EQ(missing.size(), 1u) << describe(missing);
  EXPECT_EQ(missing[0].rule, "rules.component");
  EXPECT_EQ(missing[0].field, "arguments[1]");
  EXPECT_EQ(missing[0].position.line, 6);

  Problems extra = load_rules_text(testing::replace_all(
      kTwoRules, "  reason: placement\n", "  component: placement\n  reason: placement\n"));
  ASSERT_EQ(extra.size(), 1u) << describe(extra);
  EXPECT_EQ(extra[0].field, "arguments[0].component");
  EXPECT_EQ(extra[0].position.line, 5);
}

TEST(ArgumentRules, BrokenYamlAndMissingFilesAreReportedWithPositions) {
  Problems duplicate = load_rules_text(testing::replace_all(
      kTwoRules, "  reason: dispatcher\n", "  reason: dispatcher\n  reason: again\n"));
  ASSERT_FALSE(duplicate.empty());
  EXPECT_EQ(duplicate[0].rule, "yaml");
  EXPECT_EQ(duplicate[0].position.line, 11) << describe(duplicate);

  Problems problems;
  EXPECT_FALSE(load_argument_rules_file("/no/such/arguments.yaml",
                                        source_dir() + "/schema/arguments.schema.yaml", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].file, "/no/such/arguments.yaml");
  EXPECT_EQ(problems[0].position.line, 0);
}

}  // namespace
}  // namespace openrecipes
