#include "measure/sbatch_script.h"

#include <gtest/gtest.h>

#include "measure/measure_error.h"

namespace openrecipes {
namespace {

Recipe two_node_recipe() {
  Recipe recipe;
  recipe.gpu.count = 16;
  recipe.gpu.per_node = 8;
  recipe.env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
                {"NCCL_NVLS_ENABLE", "$([ \"$N\" -gt 0 ] && echo 1 || echo 0)"}};
  recipe.run = "export A=1\ntorchrun pretrain_gpt.py --train-iters 12 --log-interval 1\n";
  return recipe;
}

SbatchOptions options() {
  SbatchOptions o;
  o.recipe_name = "two-node.yaml";
  o.out_dir = "/scratch/runs";
  o.partition = "batch";
  o.env = {{"HF_HOME", "it's here"}};
  return o;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SbatchScript, AsksForTheRecipesNodesAndGpusAndWritesTheLogBesideTheVersions) {
  SbatchScript script = write_sbatch_script(two_node_recipe(), options());
  EXPECT_EQ(script.nodes, 2);
  EXPECT_TRUE(has(script.text, "#SBATCH --nodes=2\n"));
  EXPECT_TRUE(has(script.text, "#SBATCH --gpus-per-node=8\n"));
  EXPECT_TRUE(has(script.text, "#SBATCH --output=/scratch/runs/slurm-%j.log\n"));
  EXPECT_TRUE(has(script.text, "#SBATCH --partition=batch\n"));
  EXPECT_FALSE(has(script.text, "--account"));
  EXPECT_TRUE(has(script.text, "versions_file='/scratch/runs'/versions-\"$SLURM_JOB_ID\".txt"));
  EXPECT_EQ(job_log_path("/scratch/runs", 42), "/scratch/runs/slurm-42.log");
  EXPECT_EQ(job_versions_path("/scratch/runs", 42), "/scratch/runs/versions-42.txt");
}

TEST(SbatchScript, ExportsTheEnvironmentAndRunsTheCommandWithTheProtocolsSteps) {
  SbatchScript script = write_sbatch_script(two_node_recipe(), options());
  EXPECT_TRUE(has(script.text, "export CUDA_DEVICE_MAX_CONNECTIONS='1'\n"));
  EXPECT_TRUE(
      has(script.text, "export NCCL_NVLS_ENABLE=$([ \"$N\" -gt 0 ] && echo 1 || echo 0)\n"));
  EXPECT_TRUE(has(script.text, "export HF_HOME='it'\\''s here'\n"));
  EXPECT_TRUE(has(script.text, "torchrun pretrain_gpt.py --train-iters 20 --log-interval 1\n"));
  EXPECT_TRUE(has(script.text, "# --train-iters: 20 (12 as the recipe's run states it)."));
  // The versions come first, then the run, and the script exits with the run's status.
  EXPECT_LT(script.text.find("python3 -c \"$versions_program\""),
            script.text.find("bash -c \"$run_command\""));
  EXPECT_TRUE(has(script.text, "exit $status\n"));
}

TEST(SbatchScript, NoGpuRequestAndAContainerImage) {
  SbatchOptions o = options();
  o.gpu_request = false;
  o.container_image = "registry.example.com:5005/team/train:1";
  SbatchScript script = write_sbatch_script(two_node_recipe(), o);
  EXPECT_FALSE(has(script.text, "--gpus-per-node"));
  EXPECT_TRUE(has(
      script.text,
      "srun --nodes=1 --ntasks=1 --container-image='registry.example.com:5005/team/train:1' bash"));
}

TEST(SbatchScript, RefusesWhatItCannotRun) {
  Recipe partial_node = two_node_recipe();
  partial_node.gpu.count = 12;
  EXPECT_THROW(write_sbatch_script(partial_node, options()), MeasureError);
  SbatchOptions bad_env = options();
  bad_env.env = {{"1BAD", "x"}};
  EXPECT_THROW(write_sbatch_script(two_node_recipe(), bad_env), MeasureError);
  SbatchOptions blank_out = options();
  blank_out.out_dir = "/scratch/my runs";
  EXPECT_THROW(write_sbatch_script(two_node_recipe(), blank_out), MeasureError);
  Recipe hides_end = two_node_recipe();
  hides_end.run += "OPENRECIPES_RUN_END\n";
  EXPECT_THROW(write_sbatch_script(hides_end, options()), MeasureError);
}

}  // namespace
}  // namespace openrecipes
