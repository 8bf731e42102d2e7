#include "runs/correctness_check.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

const Recipe& flex() {
  static const Recipe recipe = [] {
    Problems problems;
    std::string path = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml";
    std::optional<YamlDocument> document =
        parse_yaml(testing::read_source_file(path), path, problems);
    return recipe_from_yaml(document->root);
  }();
  return recipe;
}

TEST(CorrectnessCheck, WithoutInputsEachPartIsTakenAsStated) {
  CorrectnessCheck check = check_correctness(flex(), {});
  ASSERT_EQ(check.parts.size(), 4u);
  EXPECT_TRUE(check.passed());
  EXPECT_FALSE(check.parts[1].recomputed);  // configuration
  EXPECT_FALSE(check.parts[3].recomputed);  // convergence
  EXPECT_EQ(check.summary(),
            "passed; as the recipe states: configuration, component tests, convergence");
}

TEST(CorrectnessCheck, AnyFailedPartFailsTheResult) {
  Recipe failed_test = flex();
  failed_test.correctness.component_tests[0].result = "fail";
  CorrectnessCheck tests = check_correctness(failed_test, {});
  EXPECT_FALSE(tests.passed());
  EXPECT_NE(tests.summary().find(
                "component tests: not passed: flex dispatcher against an FP32 reference"),
            std::string::npos);

  CorrectnessInputs invalid;
  invalid.validation.push_back({"x.yaml", {1, 1}, "result.mfu", "figures.mfu", "wrong", "", ""});
  EXPECT_FALSE(check_correctness(flex(), invalid).passed());

  CorrectnessInputs diverged;
  diverged.convergence = ConvergenceResult{};
  diverged.convergence->failures = {"correlation 0.5 < 0.95"};
  CorrectnessCheck convergence = check_correctness(flex(), diverged);
  EXPECT_FALSE(convergence.passed());
  EXPECT_TRUE(convergence.parts[3].recomputed);
  std::string block = correctness_block_yaml(flex(), diverged, convergence);
  EXPECT_NE(block.find("correctness:\n  result: fail\n"), std::string::npos) << block;
  EXPECT_NE(block.find("  convergence:\n    steps: 0\n    result: fail\n"), std::string::npos)
      << block;
}

}  // namespace
}  // namespace openrecipes
