// `openrecipes measure` as a user runs it, without a cluster: the pre-flight's refusals of the
// bundled recipes and of control characters (exit 1, problems on stderr, nothing written), the
// filled recipe's --dry-run as one JSON object, and the placeholder list in --help.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

testing::ShellRun measure(const std::string& arguments, const std::string& redirections) {
  return testing::run_binary("measure " + arguments, testing::source_dir(), redirections);
}

const std::string kFilled =
    " --slurm --dry-run --set 'slime entry module=train_async' --env HF_CKPT=/ckpt/hf "
    "--env TORCH_DIST=/ckpt/dist --env SFT_DATA=hf://datasets/x";

TEST(MeasureCli, EveryBundledRecipeIsRefusedUntilItsPlaceholderAndVariablesAreFilled) {
  for (const std::string& recipe : testing::kBundledRecipes) {
    testing::ShellRun refused = measure(recipe + " --slurm --dry-run --format json", "2>&1");
    EXPECT_EQ(refused.exit_code, 1) << recipe;
    nlohmann::json problems = nlohmann::json::parse(refused.output);
    ASSERT_TRUE(problems.is_array()) << refused.output;
    EXPECT_EQ(problems[0]["rule"], "measure.placeholder") << recipe;
    EXPECT_EQ(problems[0]["found"], "<slime entry module>");
    std::set<std::string> unset;
    for (const auto& problem : problems) {
      if (problem["rule"] == "measure.variable") unset.insert(problem["message"]);
    }
    EXPECT_EQ(unset, (std::set<std::string>{"the run reads $HF_CKPT and nothing sets it",
                                            "the run reads $TORCH_DIST and nothing sets it",
                                            "the run reads $SFT_DATA and nothing sets it"}))
        << recipe;
  }
  testing::ShellRun accepted =
      measure(testing::kBundledRecipes[0] + kFilled + " --format json", "2>/dev/null");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.output;
  nlohmann::json dry_run = nlohmann::json::parse(accepted.output);
  std::string script = dry_run["script"];
  EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_NE(script.find("python3 -m train_async --async \\\n"), std::string::npos);
  EXPECT_NE(script.find("--num-rollout 20 "), std::string::npos);
  EXPECT_EQ(dry_run["nodes"], 1);
  EXPECT_EQ(dry_run["step_count"]["flag"], "--num-rollout");
  EXPECT_EQ(dry_run["notes"].size(), 1u);
}

// The example: a newline in --account would add a shell line to the script.
TEST(MeasureCli, AControlCharacterIsRefusedAndNothingIsWritten) {
  std::string out = testing::fresh_dir("measure_cli_control") + "/runs";
  testing::ShellRun refused =
      measure(testing::kBundledRecipes[0] + kFilled + " --out '" + out +
                  "' --account \"$(printf 'x\\nsrun rm -rf /tmp/important')\"",
              "2>&1 >/dev/null");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.output,
            std::string("--account: holds a control character: a newline would "
                        "start another line of the batch script (expected printable "
                        "text, found x\\nsrun rm -rf /tmp/important)\n"));
  EXPECT_FALSE(fs::exists(out));
}

// --sbatch-arg's values are #SBATCH flags, so they may start with "--"; but not with measure's own
// flags: `--sbatch-arg --dry-run` made "#SBATCH --dry-run" of the dry run and submitted the job.
TEST(MeasureCli, AnSbatchArgIsNeverMeasuresOwnFlag) {
  for (const std::string& swallowed :
       {std::string("--sbatch-arg --dry-run"), std::string("--sbatch-arg --format json"),
        std::string("--sbatch-arg=--account=x")}) {
    testing::ShellRun refused =
        measure(testing::kBundledRecipes[0] + kFilled + " " + swallowed, "2>&1 >/dev/null");
    EXPECT_EQ(refused.exit_code, 2) << swallowed << "\n" << refused.output;
    // As text "expected an #SBATCH option, found measure's own flag ..."; with --format json
    // (the second case) the same in the problem's expected and found.
    EXPECT_NE(refused.output.find("an #SBATCH option"), std::string::npos) << refused.output;
    EXPECT_NE(refused.output.find("measure's own flag"), std::string::npos) << refused.output;
  }
  // Blanks alone are no #SBATCH option either: a usage error, as for every other flag.
  for (const std::string& blank : {std::string("' '"), std::string("'\t'")}) {
    testing::ShellRun refused = measure(
        testing::kBundledRecipes[0] + kFilled + " --sbatch-arg " + blank, "2>&1 >/dev/null");
    EXPECT_EQ(refused.exit_code, 2) << blank << "\n" << refused.output;
    EXPECT_NE(refused.output.find("expected an #SBATCH option, found only blanks"),
              std::string::npos)
        << refused.output;
  }
  testing::ShellRun accepted = measure(
      testing::kBundledRecipes[0] + kFilled + " --format json --sbatch-arg --constraint=h200",
      "2>/dev/null");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.output;
  EXPECT_NE(nlohmann::json::parse(accepted.output)["script"].get<std::string>().find(
                "#SBATCH --constraint=h200\n"),
            std::string::npos);
}

TEST(MeasureCli, HelpNamesThePlaceholdersAndSlimesEntryModules) {
  testing::ShellRun help = measure("--help", "2>&1");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* part : {"<slime entry module>", "train_async", "--model-args-file",
                           "--container-mounts", "--sbatch-arg", "--reservation"})
    EXPECT_NE(help.output.find(part), std::string::npos) << part << "\n" << help.output;
}

}  // namespace
}  // namespace openrecipes
