// `openrecipes finalize` as a contributor runs it: export a draft, measure it (the bundled
// recipe's logs stand for the run), finalize it into a copy of the catalog, and the catalog
// validates with the new recipe; bad input is named with exit 1.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

std::string logs(const std::string& name) {
  return testing::source_dir() + "/tests/fixtures/logs/" + name;
}

TEST(FinalizeCli, AnExportedDraftBecomesARecipeTheCatalogValidates) {
  fs::path root = testing::catalog_copy("finalize_cli");
  testing::ShellRun exported = testing::run_binary(
      "export --model gpt-oss-20b --gpu H200 --gpus 8 --layout 'TP1 PP2 EP4' --to slime "
      "-o draft.yaml",
      root.string(), "2>&1");
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  // The contributor names themself and pins the stack the run measured.
  std::string draft = testing::read_file(root / "draft.yaml");
  draft = testing::replace_all(draft, "github: your-handle", "github: tester");
  draft = testing::replace_all(draft, ": not pinned", ": as in the run's image");
  std::ofstream(root / "draft.yaml") << draft;

  std::string finalize =
      "finalize draft.yaml --candidate-log " + logs("megatron_lm_gpt_oss_20b_8xh200.log") +
      " --reference recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml --reference-log " +
      logs("megatron_lm_gpt_oss_20b_reference_arm.log");
  testing::ShellRun dry =
      testing::run_binary(finalize + " --dry-run", root.string(), "2>/dev/null");
  EXPECT_EQ(dry.exit_code, 0);
  EXPECT_NE(dry.output.find("\nstatus: verified\n"), std::string::npos) << dry.output;
  EXPECT_FALSE(fs::exists(root / "recipes/gpt-oss-20b/h200/tester-tp1-pp2-ep4.yaml"));

  testing::ShellRun wrote = testing::run_binary(finalize, root.string(), "2>&1");
  ASSERT_EQ(wrote.exit_code, 0) << wrote.output;
  EXPECT_NE(wrote.output.find("wrote recipes/gpt-oss-20b/h200/tester-tp1-pp2-ep4.yaml"),
            std::string::npos)
      << wrote.output;
  EXPECT_EQ(testing::read_file(root / "recipes/gpt-oss-20b/h200/tester-tp1-pp2-ep4.yaml"),
            dry.output);
  testing::ShellRun validated = testing::run_binary("validate", root.string(), "2>&1");
  EXPECT_EQ(validated.exit_code, 0) << validated.output;
  EXPECT_EQ(validated.output, "5 recipes, 0 problems\n");

  // Once there, the recipe is not overwritten by accident; the error is JSON with --format json.
  testing::ShellRun again =
      testing::run_binary(finalize + " --format json", root.string(), "2>&1 >/dev/null");
  EXPECT_EQ(again.exit_code, 1);
  nlohmann::json problems = nlohmann::json::parse(again.output, nullptr, false);
  ASSERT_TRUE(problems.is_array()) << again.output;
  EXPECT_EQ(problems[0]["rule"], "finalize.exists");
}

TEST(FinalizeCli, MissingOrUnreadableEvidenceIsNamed) {
  fs::path root = testing::catalog_copy("finalize_cli_bad");
  testing::ShellRun no_flags = testing::run_binary("finalize draft.yaml", root.string(), "2>&1");
  EXPECT_EQ(no_flags.exit_code, 2);
  EXPECT_NE(no_flags.output.find("--candidate-log"), std::string::npos) << no_flags.output;
  for (const char* hours : {"nan", "0", "-1", "1e12", "abc", "3x"}) {
    testing::ShellRun bad_hours = testing::run_binary(
        std::string("finalize d.yaml --candidate-log c --reference r --reference-log l "
                    "--gpu-hours ") +
            hours,
        root.string(), "2>&1");
    EXPECT_EQ(bad_hours.exit_code, 2) << hours << ": " << bad_hours.output;
    EXPECT_NE(
        bad_hours.output.find("--gpu-hours: expected a number above 0 and at most 1000000000"),
        std::string::npos)
        << bad_hours.output;
  }
  testing::ShellRun missing = testing::run_binary(
      "finalize missing.yaml --candidate-log none.log --reference "
      "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml --reference-log none.log",
      root.string(), "2>&1");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("missing.yaml: no such file"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace openrecipes
