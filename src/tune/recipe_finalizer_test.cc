#include "tune/recipe_finalizer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

const char* kReference = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
const char* kCandidateLog = "tests/fixtures/logs/megatron_lm_gpt_oss_20b_8xh200.log";
const char* kReferenceLog = "tests/fixtures/logs/megatron_lm_gpt_oss_20b_reference_arm.log";
// `openrecipes export --model gpt-oss-20b --gpu H200 --gpus 8 --layout "TP1 PP2 EP4" --to slime`
// (tests/fixtures/drafts/README.md): the reference's own layout, so the measured run's log is
// this draft's run.
const char* kDraft = "tests/fixtures/drafts/gpt-oss-20b-h200-tp1-pp2-ep4.yaml";

// The exported draft as its author completes it before finalize: a handle and the stack the run
// measured (the reference recipe's, which ran the same image).
std::string completed_draft() {
  std::string text = testing::read_source_file(kDraft);
  text = testing::replace_all(text, "github: your-handle", "github: tester");
  for (const char* part :
       {"framework", "megatron_lm", "transformer_engine", "pytorch", "cuda", "nccl"})
    text = testing::replace_all(text, std::string(part) + ": not pinned",
                                std::string(part) + ": as the reference recipe's stack");
  return text;
}

// A request on the bundled catalog with `draft_text` written to a scratch file.
FinalizeRequest request_for(const std::string& name, const std::string& draft_text) {
  std::string dir = testing::fresh_dir("finalize_" + name);
  std::ofstream(dir + "/draft.yaml") << draft_text;
  FinalizeRequest request;
  request.root = testing::source_dir();
  request.draft = dir + "/draft.yaml";
  request.candidate_log = testing::source_dir() + "/" + kCandidateLog;
  request.reference = testing::source_dir() + "/" + kReference;
  request.reference_log = testing::source_dir() + "/" + kReferenceLog;
  return request;
}

TEST(RecipeFinalizer, AMeasuredDraftBecomesAVerifiedRecipeThatValidatesAtItsPath) {
  FinalizeRequest request = request_for("verified", completed_draft());
  Problems problems;
  std::optional<FinalizedRecipe> recipe = finalize_recipe(request, problems);
  ASSERT_TRUE(recipe) << testing::describe(problems);
  EXPECT_EQ(recipe->status, "verified");
  EXPECT_EQ(recipe->catalog_path, "recipes/gpt-oss-20b/h200/tester-tp1-pp2-ep4.yaml");
  EXPECT_EQ(recipe->path, request.root / recipe->catalog_path);
  EXPECT_TRUE(testing::validate_as(recipe->catalog_path, recipe->text).empty())
      << testing::describe(testing::validate_as(recipe->catalog_path, recipe->text));
  const std::string& text = recipe->text;
  EXPECT_NE(text.find("\nstatus: verified\n"), std::string::npos);
  // The result is the log's (as `score` gives it, the bundled recipe's 9,448.16 tokens/s).
  EXPECT_NE(text.find("  tokens_per_s_per_gpu: 9448.16\n"), std::string::npos);
  EXPECT_NE(text.find("    count: 3607142400\n"), std::string::npos);
  // The rows are the reference's.
  EXPECT_NE(
      text.find("rows_sha256: de2b9bb0f64927fd4214b45c3718fec01d9f2579da462e7615b1154d88185963"),
      std::string::npos);
  EXPECT_NE(text.find("  convergence:\n    steps: 20\n    result: pass\n"), std::string::npos);
  // A measured recipe has no prediction, and the draft's header no longer calls it planned.
  EXPECT_EQ(text.find("prediction:"), std::string::npos);
  EXPECT_EQ(text.find("planned"), std::string::npos);
  // Every line the draft's author wrote from `env:` to `notes:` is kept byte for byte; the notes
  // no longer say the recipe is not measured.
  std::string draft = completed_draft();
  auto between = [](const std::string& t) {
    std::size_t from = t.find("\nenv:\n");
    return t.substr(from, t.find("\nnotes:") - from);
  };
  EXPECT_EQ(between(text), between(draft));
  EXPECT_NE(text.find("notes: |\n  Planned by openrecipes plan, then measured under the protocol"),
            std::string::npos);
}

TEST(RecipeFinalizer, TheReferencesRowsFillANullDatasetAtTheDraftsIndentation) {
  // The draft written by hand: `workload` indented by 4, its dataset null.
  std::string draft = completed_draft();
  std::size_t workload = draft.find("\nworkload:\n") + 1;
  std::size_t layout = draft.find("\nlayout:\n") + 1;
  std::string block =
      "workload:\n    row_tokens: 8192\n    rows: SFT conversations\n"
      "    global_batch: 128\n    precision: bf16\n    dataset: null\n";
  draft.replace(workload, layout - workload, block);
  Problems problems;
  std::optional<FinalizedRecipe> recipe = finalize_recipe(request_for("indented", draft), problems);
  ASSERT_TRUE(recipe) << testing::describe(problems);
  EXPECT_NE(
      recipe->text.find("    precision: bf16\n    dataset:\n      name: Tulu 3 SFT mixture\n"),
      std::string::npos)
      << recipe->text.substr(0, 2000);
  EXPECT_EQ(recipe->status, "verified");
}

TEST(RecipeFinalizer, LossesThatDivergeGiveAnUnverifiedRecipeThatSaysWhy) {
  // The reference arm's per-step losses, each 10% higher: past validate_convergence's 5% tolerance.
  std::string dir = testing::fresh_dir("finalize_diverged_losses");
  std::ofstream csv(dir + "/reference.csv");
  csv << "step,loss\n";
  const double losses[] = {1.393256,  1.325107,  1.253516,  1.195817,  1.151019,
                           1.126183,  1.085096,  1.055775,  1.051139,  1.031658,
                           1.020829,  0.9929342, 0.9903679, 0.9816786, 0.958589,
                           0.9725226, 0.964701,  0.9803731, 0.954375,  0.9477312};
  for (int step = 0; step < 20; ++step) csv << step << "," << losses[step] * 1.10 << "\n";
  csv.close();
  FinalizeRequest request = request_for("diverged", completed_draft());
  request.reference_log = dir + "/reference.csv";
  Problems problems;
  std::optional<FinalizedRecipe> recipe = finalize_recipe(request, problems);
  ASSERT_TRUE(recipe) << testing::describe(problems);
  EXPECT_EQ(recipe->status, "unverified");
  EXPECT_FALSE(recipe->check.passed());
  EXPECT_NE(recipe->text.find("\nstatus: unverified\n"), std::string::npos);
  EXPECT_NE(recipe->text.find("# Not verified: failed"), std::string::npos) << recipe->text;
  EXPECT_NE(recipe->text.find("    result: fail\n"), std::string::npos);
  EXPECT_TRUE(testing::validate_as(recipe->catalog_path, recipe->text).empty());
}

TEST(RecipeFinalizer, WhatExportLeavesForTheAuthorIsAProblemAtTheDraftsLine) {
  FinalizeRequest request = request_for("placeholders", testing::read_source_file(kDraft));
  Problems problems;
  EXPECT_FALSE(finalize_recipe(request, problems));
  ASSERT_TRUE(testing::has_rule(problems, "finalize.author")) << testing::describe(problems);
  ASSERT_TRUE(testing::has_rule(problems, "finalize.stack"));
  for (const Problem& problem : problems) {
    EXPECT_EQ(problem.file, request.draft);
    if (problem.field == "author.github") {
      EXPECT_EQ(problem.position.line, testing::line_containing(kDraft, "github: your-handle"));
    }
  }
}

TEST(RecipeFinalizer, AProblemWithTheDraftsOwnLinesIsReportedAtTheDraftsLine) {
  // A patch that does not exist, below the blocks finalize fills (whose lengths differ from the
  // draft's): the problem is at the line of the draft, not of the composed recipe.
  std::string draft = testing::replace_all(completed_draft(), "- patches/attune_gpt_oss_yarn.py",
                                           "- patches/missing.py");
  FinalizeRequest request = request_for("draft_line", draft);
  Problems problems;
  EXPECT_FALSE(finalize_recipe(request, problems));
  ASSERT_TRUE(testing::has_rule(problems, "patches")) << testing::describe(problems);
  int line = 1;
  for (std::size_t at = 0; (at = draft.find('\n', at)) < draft.find("- patches/missing.py"); ++at)
    ++line;
  for (const Problem& problem : problems) {
    EXPECT_EQ(problem.file, request.draft);
    if (problem.rule == "patches") {
      EXPECT_EQ(problem.position.line, line);
    }
  }
  EXPECT_FALSE(fs::exists(request.root / "recipes/gpt-oss-20b/h200/tester-tp1-pp2-ep4.yaml"));
}

TEST(RecipeFinalizer, ALogOfAnotherRunOrAPlannedReferenceIsRefused) {
  FinalizeRequest other_run = request_for("other_run", completed_draft());
  // A 32-GPU run's log, whose argument dump says so, for a draft of 8 GPUs.
  other_run.candidate_log =
      testing::source_dir() + "/tests/fixtures/logs/slime_qwen35_122b_flex_32xh200_args.log";
  Problems problems;
  EXPECT_FALSE(finalize_recipe(other_run, problems));
  EXPECT_TRUE(testing::has_rule(problems, "score.world_size")) << testing::describe(problems);

  FinalizeRequest planned_reference = request_for("planned_reference", completed_draft());
  planned_reference.reference = testing::source_dir() + "/" + kDraft;  // a planned draft
  problems.clear();
  EXPECT_FALSE(finalize_recipe(planned_reference, problems));
  EXPECT_TRUE(testing::has_rule(problems, "finalize.reference")) << testing::describe(problems);

  FinalizeRequest other_model = request_for("other_model", completed_draft());
  other_model.reference =
      testing::source_dir() + "/recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml";
  problems.clear();
  EXPECT_FALSE(finalize_recipe(other_model, problems));
  EXPECT_TRUE(testing::has_rule(problems, "finalize.reference")) << testing::describe(problems);

  // A variant std::regex would have recursed on until the stack ran out, and others.
  for (std::string variant : {std::string("Not A Variant"), std::string(30000, 'a'),
                              std::string("a-"), std::string("a--b"), std::string("../x")}) {
    FinalizeRequest bad_variant = request_for("bad_variant", completed_draft());
    bad_variant.variant = variant;
    problems.clear();
    EXPECT_FALSE(finalize_recipe(bad_variant, problems));
    EXPECT_TRUE(testing::has_rule(problems, "finalize.variant")) << variant.substr(0, 20);
  }
  FinalizeRequest good_variant = request_for("good_variant", completed_draft());
  good_variant.variant = "rerun-2";
  problems.clear();
  std::optional<FinalizedRecipe> rerun = finalize_recipe(good_variant, problems);
  ASSERT_TRUE(rerun) << testing::describe(problems);
  EXPECT_EQ(rerun->catalog_path, "recipes/gpt-oss-20b/h200/tester-tp1-pp2-ep4-rerun-2.yaml");
}

TEST(RecipeFinalizer, SchedulerGpuHoursBelowTheWindowsOwnStillGiveValidYaml) {
  // The block then states the window's own GPU time, with a note holding ": " (quoted).
  FinalizeRequest request = request_for("tiny_gpu_hours", completed_draft());
  request.scheduler_gpu_hours = 1e-9;
  Problems problems;
  std::optional<FinalizedRecipe> recipe = finalize_recipe(request, problems);
  ASSERT_TRUE(recipe) << testing::describe(problems);
  EXPECT_NE(recipe->text.find("  gpu_hours_note: \""), std::string::npos);
}

TEST(RecipeFinalizer, WritingRefusesARecipeAlreadyThereUnlessReplaced) {
  FinalizedRecipe recipe;
  recipe.path = fs::path(testing::fresh_dir("finalize_write")) / "recipes/m/g/x-tp1.yaml";
  recipe.text = "first\n";
  Problems problems;
  ASSERT_TRUE(write_finalized_recipe(recipe, false, problems)) << testing::describe(problems);
  recipe.text = "second\n";
  EXPECT_FALSE(write_finalized_recipe(recipe, false, problems));
  EXPECT_TRUE(testing::has_rule(problems, "finalize.exists"));
  EXPECT_EQ(testing::read_file(recipe.path), "first\n");
  problems.clear();
  EXPECT_TRUE(write_finalized_recipe(recipe, true, problems));
  EXPECT_EQ(testing::read_file(recipe.path), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(recipe.path.parent_path()), {}), 1);
  // Not even --replace puts a recipe where a folder is.
  recipe.path = recipe.path.parent_path() / "folder.yaml";
  fs::create_directory(recipe.path);
  problems.clear();
  EXPECT_FALSE(write_finalized_recipe(recipe, true, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].found, "a folder");
}

}  // namespace
}  // namespace openrecipes
