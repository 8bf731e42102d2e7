// classify_files and its report on the bundled recipes: what `openrecipes classify` prints, without
// the binary.
#include "runs/classify_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;

const std::string kQwenRecipeStem = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8";

// classify_files from the source folder, as `openrecipes classify` runs from the checkout.
std::optional<ClassifyReport> classify(const std::string& candidate, const std::string& reference,
                                       Problems& problems, const std::string& standard_input = "") {
  std::filesystem::path here = std::filesystem::current_path();
  std::filesystem::current_path(testing::source_dir());
  std::istringstream in(standard_input);
  std::optional<ClassifyReport> report = classify_files(".", candidate, reference, in, problems);
  std::filesystem::current_path(here);
  return report;
}

TEST(ClassifyReport, AFlexDispatcherSwapIsCoveredByItsComponentTest) {
  Problems problems;
  std::optional<ClassifyReport> report =
      classify(kQwenRecipeStem + "-flex.yaml", kQwenRecipeStem + ".yaml", problems);
  ASSERT_TRUE(report) << describe(problems);
  EXPECT_TRUE(report->result.passes());
  EXPECT_EQ(report->result.verdict, Verdict::kSwapsCovered);
  std::string text = classify_report_text(*report);
  EXPECT_EQ(text.rfind("candidate  " + kQwenRecipeStem + "-flex.yaml\nreference  " +
                           kQwenRecipeStem + ".yaml\n\n",
                       0),
            0u)
      << text;
  EXPECT_NE(
      text.find("verdict         same-math swaps covered by passed component tests: dispatcher\n"),
      std::string::npos)
      << text;
}

TEST(ClassifyReport, TheRunLengthIsBenignAtItsRecipeLine) {
  Problems problems;
  std::optional<ClassifyReport> report =
      classify(kQwenRecipeStem + "-rc2.yaml", kQwenRecipeStem + ".yaml", problems);
  ASSERT_TRUE(report) << describe(problems);
  nlohmann::json json = classify_report_json(*report);
  EXPECT_EQ(json["verdict"]["id"], "execution_only");
  EXPECT_EQ(json["candidate"]["kind"], "recipe");
  EXPECT_EQ(json["rules"], "rules/arguments.yaml");
  const nlohmann::json& run_length = json["differences"][2];
  EXPECT_EQ(run_length["name"], "num_rollout");
  EXPECT_EQ(run_length["class"], "benign");
  // The file's line, not the command's.
  EXPECT_EQ(run_length["reference_line"],
            testing::line_containing(kQwenRecipeStem + ".yaml", "--num-rollout 14"));
  EXPECT_GT(run_length["reference_line"], 100);
}

TEST(ClassifyReport, StandardInputIsABareCommandWithNoComponentTests) {
  Problems problems;
  std::optional<ClassifyReport> report =
      classify("-", kQwenRecipeStem + ".yaml", problems, "python3 train.py --num-rollout 20\n");
  ASSERT_TRUE(report) << describe(problems);
  EXPECT_EQ(report->candidate.source, "-");
  EXPECT_FALSE(report->candidate.recipe);
  EXPECT_FALSE(report->candidate.component_tests);
  EXPECT_FALSE(report->result.passes());
}

TEST(ClassifyReport, ARecipeWithoutRunAndAMissingFileAreProblems) {
  std::filesystem::path dir = testing::fresh_dir("classify_report");
  std::ofstream(dir / "no-run.yaml") << "model: gpt-oss-20b\n";
  Problems problems;
  EXPECT_FALSE(classify((dir / "no-run.yaml").string(), "no/such.sh", problems));
  ASSERT_EQ(problems.size(), 2u) << describe(problems);
  EXPECT_EQ(problems[0].rule, "classify.run");
  EXPECT_EQ(problems[0].found, "no run field");
  EXPECT_EQ(problems[1].file, "no/such.sh");
}

TEST(ClassifyReport, ACommandProblemIsAtItsFileLine) {
  std::filesystem::path dir = testing::fresh_dir("classify_report_lines");
  std::ofstream(dir / "broken.yaml") << "model: x\nrun: |\n  python3 train.py \\\n  --lr \"1e-5\n";
  Problems problems;
  EXPECT_FALSE(classify((dir / "broken.yaml").string(), kQwenRecipeStem + ".yaml", problems));
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0].rule, "classify.command");
  EXPECT_EQ(problems[0].position.line, 4) << describe(problems);
}

}  // namespace
}  // namespace openrecipes
