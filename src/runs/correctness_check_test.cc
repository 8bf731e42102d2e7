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

TEST(CorrectnessCheck, WithoutEvidenceTheResultIsUnverified) {
  CorrectnessCheck check = check_correctness(flex(), {});
  ASSERT_EQ(check.parts.size(), 4u);
  EXPECT_FALSE(check.passed());
  EXPECT_EQ(check.result(), "unverified");
  EXPECT_EQ(check.parts[0].status(), "pass");        // validation: always recomputed
  EXPECT_EQ(check.parts[1].status(), "unverified");  // configuration
  EXPECT_EQ(check.parts[3].status(), "unverified");  // convergence
  EXPECT_EQ(check.summary(),
            "unverified: not checked by this command: configuration, component tests, "
            "convergence");
  EXPECT_EQ(check.result_text(),
            "unverified (not checked by this command: configuration, component tests, "
            "convergence; give --reference and --candidate-log/--reference-log, or "
            "--accept-stated to take the recipe's statement)");
  std::string block = correctness_block_yaml(flex(), {}, check);
  EXPECT_NE(block.find("correctness:\n  result: unverified\n"), std::string::npos) << block;
}

TEST(CorrectnessCheck, AcceptStatedPassesAndSaysSo) {
  CorrectnessInputs accepted;
  accepted.accept_stated = true;
  CorrectnessCheck check = check_correctness(flex(), accepted);
  EXPECT_TRUE(check.passed());
  EXPECT_TRUE(check.passed_on_stated());
  EXPECT_EQ(check.parts[3].status(), "unverified");  // accepted, still not checked
  EXPECT_EQ(check.result_text(),
            "pass (stated, not verified: configuration, component tests, convergence taken "
            "from the recipe as stated, --accept-stated)");
  EXPECT_EQ(check.summary(),
            "passed; as the recipe states (--accept-stated, not verified): configuration, "
            "component tests, convergence");
  // A stated failure is not accepted.
  Recipe failed = flex();
  failed.correctness.convergence.result = "fail";
  EXPECT_EQ(check_correctness(failed, accepted).result(), "fail");
}

TEST(CorrectnessCheck, EveryPartRecomputedPassesWithoutWords) {
  CorrectnessInputs inputs;
  inputs.classification = Classification{};
  inputs.reference = "reference.yaml";
  inputs.convergence = ConvergenceResult{};
  inputs.convergence->passed = true;
  inputs.convergence->steps = 20;
  CorrectnessCheck check = check_correctness(flex(), inputs);
  ASSERT_TRUE(check.parts[1].recomputed) << check.parts[1].detail;
  EXPECT_TRUE(check.passed()) << check.summary();
  EXPECT_FALSE(check.passed_on_stated());
  EXPECT_EQ(check.result_text(), "pass");
  EXPECT_EQ(check.summary(), "passed; every part recomputed");
  // Logs alone verify convergence; configuration stays unverified.
  inputs.classification.reset();
  CorrectnessCheck logs_only = check_correctness(flex(), inputs);
  EXPECT_EQ(logs_only.parts[3].status(), "pass");
  EXPECT_EQ(logs_only.result(), "unverified");
  EXPECT_EQ(logs_only.summary(),
            "unverified: not checked by this command: configuration, component tests");
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
