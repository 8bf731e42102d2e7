// export_layout_draft's run settings: the settings recipe's with the flags on top, and a switch
// only the recipe runs left out exactly where the layout breaks a rule with it; the recipe's other
// switches stay (rules of docs/planner.md, mesh.shared_expert_overlap).
#include "export/export_draft.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

using testing::bundled_catalog;

const std::string kSharedOverlapRecipe = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.yaml";

// The bundled Qwen3.5 recipe that runs --moe-shared-expert-overlap, with --tp-comm-overlap added
// to its command: a TP2 layout runs that legally, a flex one not the shared-expert overlap.
Recipe recipe_with_two_switches() {
  RecipeReport report =
      validate_recipe_file(bundled_catalog(), testing::source_dir() + "/" + kSharedOverlapRecipe);
  EXPECT_TRUE(report.recipe) << testing::describe(report.problems);
  Recipe recipe = *report.recipe;
  EXPECT_NE(recipe.run.find("--moe-shared-expert-overlap"), std::string::npos);
  recipe.run = testing::replace_all(recipe.run, "--moe-shared-expert-overlap",
                                    "--tp-comm-overlap --moe-shared-expert-overlap");
  return recipe;
}

std::string draft_text(const Recipe& settings, const std::string& dispatcher) {
  PlanArguments arguments;
  arguments.model = "Qwen3.5-122B-A10B";
  arguments.gpu = "H200";
  arguments.gpus = 32;
  arguments.layout.layout = "TP2 PP4 EP8";
  arguments.layout.recompute = "full:uniform:2";
  arguments.layout.dispatcher = dispatcher;
  Problems problems;
  std::optional<PlanRequest> request =
      resolve_plan_request(bundled_catalog().catalog, arguments, problems);
  EXPECT_TRUE(request) << testing::describe(problems);
  if (!request) return "";
  return export_layout_draft(*request, bundled_catalog().catalog, {}, SpeedParameters{},
                             testing::bundled_argument_rules(), ExportTarget::kMegatronLm,
                             {&settings, kSharedOverlapRecipe})
      .text;
}

TEST(ExportLayoutDraft, LeavesOutOnlyTheRecipesSwitchThatBreaksARule) {
  const Recipe settings = recipe_with_two_switches();
  const std::string flex = draft_text(settings, "flex");
  EXPECT_NE(flex.find("\n    --tp-comm-overlap"), std::string::npos) << flex;
  EXPECT_EQ(flex.find("\n    --moe-shared-expert-overlap"), std::string::npos) << flex;
  EXPECT_NE(flex.find("# Not carried: --moe-shared-expert-overlap, which the settings recipe runs"),
            std::string::npos)
      << flex;
  EXPECT_NE(flex.find("mesh.shared_expert_overlap"), std::string::npos) << flex;
  EXPECT_NE(flex.find("not given to export: --tp-comm-overlap;"), std::string::npos) << flex;

  const std::string alltoall = draft_text(settings, "alltoall");
  for (const char* flag : {"\n    --tp-comm-overlap", "\n    --moe-shared-expert-overlap"})
    EXPECT_NE(alltoall.find(flag), std::string::npos) << flag << "\n" << alltoall;
  EXPECT_EQ(alltoall.find("Not carried: --"), std::string::npos) << alltoall;
  // The comment's lines joined again (comment_lines wraps at about 100 columns).
  const std::string joined = testing::replace_all(alltoall, "\n  # ", " ");
  EXPECT_NE(joined.find("not given to export: --tp-comm-overlap --moe-shared-expert-overlap;"),
            std::string::npos)
      << alltoall;
}

}  // namespace
}  // namespace openrecipes
