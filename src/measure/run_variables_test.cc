#include "measure/run_variables.h"

#include <gtest/gtest.h>

#include "catalog/recipe.h"
#include "test_support.h"

namespace openrecipes {
namespace {

std::vector<std::string> names(const std::vector<RunVariable>& variables) {
  std::vector<std::string> out;
  for (const RunVariable& v : variables) out.push_back(v.name + (v.array ? "[@]" : ""));
  return out;
}

std::string bundled_run_text(const std::string& path) {
  Problems problems;
  std::optional<YamlDocument> document =
      parse_yaml(testing::read_source_file(path), path, problems);
  return document ? recipe_from_yaml(document->root).run : "";
}

// gpt-oss defines MODEL_ARGS itself; the Qwen recipes leave it to the model script.
TEST(RunVariables, TheBundledRecipesReadTheCheckpointsAndTheRows) {
  EXPECT_EQ(names(variables_read(bundled_run_text(testing::kBundledRecipes[0]))),
            (std::vector<std::string>{"HF_CKPT", "TORCH_DIST", "SFT_DATA"}));
  for (std::size_t i = 1; i < testing::kBundledRecipes.size(); ++i) {
    EXPECT_EQ(names(variables_read(bundled_run_text(testing::kBundledRecipes[i]))),
              (std::vector<std::string>{"MODEL_ARGS[@]", "HF_CKPT", "TORCH_DIST", "SFT_DATA"}))
        << testing::kBundledRecipes[i];
  }
}

TEST(RunVariables, DefinedDefaultedAndSpecialOnesAreNotRead) {
  std::vector<RunVariable> read = variables_read(
      "OUT=/o\nexport N=2\ntorchrun a.py --out $OUT --n $N --m ${M:-4} --all \"$@\" --x $1 \\\n"
      "  --ckpt \"${CKPT}/iter\" --len ${#NAME} --sub \"$(cat $LIST)\"\n");
  EXPECT_EQ(names(read), (std::vector<std::string>{"CKPT", "NAME", "LIST"}));
  EXPECT_EQ(read[0].line, 4);
}

TEST(RunVariables, SlurmsAndBashsOwnAreSetInEveryJob) {
  EXPECT_TRUE(set_in_every_job("SLURM_JOB_ID"));
  EXPECT_TRUE(set_in_every_job("HOME"));
  EXPECT_FALSE(set_in_every_job("HF_CKPT"));
}

}  // namespace
}  // namespace openrecipes
