#include "measure/sbatch_script.h"

#include <gtest/gtest.h>

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
  o.recipe_file = "two-node.yaml";
  o.out_dir = "/scratch/runs";
  o.partition = "batch";
  o.env = {{"HF_HOME", "it's here"}};
  return o;
}

// The script, which the test expects to be written without problems.
SbatchScript script_of(const Recipe& recipe, const SbatchOptions& o) {
  Problems problems;
  std::optional<SbatchScript> script = write_sbatch_script(recipe, o, problems);
  EXPECT_TRUE(script) << render_problems(problems, OutputFormat::kText);
  EXPECT_TRUE(problems.empty());
  return script.value_or(SbatchScript{});
}

// The one problem write_sbatch_script gives, as a line.
std::string refusal(const Recipe& recipe, const SbatchOptions& o) {
  Problems problems;
  EXPECT_FALSE(write_sbatch_script(recipe, o, problems));
  EXPECT_EQ(problems.size(), 1u);
  return problems.empty() ? "" : format_problem_line(problems[0]);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SbatchScript, AsksForTheRecipesNodesAndGpusAndWritesTheLogBesideTheVersions) {
  SbatchScript script = script_of(two_node_recipe(), options());
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
  SbatchScript script = script_of(two_node_recipe(), options());
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
  SbatchScript script = script_of(two_node_recipe(), o);
  EXPECT_FALSE(has(script.text, "--gpus-per-node"));
  EXPECT_TRUE(has(
      script.text,
      "srun --nodes=1 --ntasks=1 --container-image='registry.example.com:5005/team/train:1' bash"));
}

TEST(SbatchScript, SlurmsOptionsPyxisMountsAndTheModelArgsFile) {
  SbatchOptions o = options();
  o.qos = "high";
  o.reservation = "maint";
  o.time = "1-00:00:00";
  o.exclude = "gpu-[01-02]";
  o.nodelist = "gpu-07";
  o.sbatch_args = {"--constraint=h200", "--comment=x"};
  o.container_image = "nvcr.io#nvidia/pytorch:25.01-py3";
  o.container_mounts = "/data:/data:ro,/it's:/x";
  o.model_args_file = "/scripts/models/qwen's.sh";
  SbatchScript script = script_of(two_node_recipe(), o);
  EXPECT_TRUE(has(script.text,
                  "#SBATCH --partition=batch\n#SBATCH --qos=high\n#SBATCH --reservation=maint\n"
                  "#SBATCH --time=1-00:00:00\n#SBATCH --exclude=gpu-[01-02]\n"
                  "#SBATCH --nodelist=gpu-07\n#SBATCH --constraint=h200\n#SBATCH --comment=x\n"));
  // Both steps run in the image with the mounts, each value one quoted word.
  std::string srun =
      "srun --nodes=1 --ntasks=1 --container-image='nvcr.io#nvidia/pytorch:25.01-py3' "
      "--container-mounts='/data:/data:ro,/it'\\''s:/x' ";
  EXPECT_TRUE(has(script.text, srun + "python3 -c"));
  EXPECT_TRUE(has(script.text, srun + "bash -c"));
  // The run sources the file first, inside the quoted here-document.
  EXPECT_TRUE(has(script.text,
                  "run_command=$(cat <<'OPENRECIPES_RUN_END'\n# --model-args-file: "
                  "the arrays the run expands (MODEL_ARGS).\nsource "
                  "'/scripts/models/qwen'\\''s.sh'\nexport A=1\n"));
}

TEST(SbatchScript, RefusesWhatItCannotRun) {
  Recipe partial_node = two_node_recipe();
  partial_node.gpu.count = 12;
  EXPECT_EQ(refusal(partial_node, options()),
            "two-node.yaml: gpu: count 12 is not a whole number of nodes of per_node 8 GPUs");
  SbatchOptions bad_env = options();
  bad_env.env = {{"1BAD", "x"}};
  EXPECT_EQ(refusal(two_node_recipe(), bad_env), "--env 1BAD=x: 1BAD is not a shell variable name");
  SbatchOptions blank_out = options();
  blank_out.out_dir = "/scratch/my runs";
  EXPECT_EQ(refusal(two_node_recipe(), blank_out),
            "--out /scratch/my runs: a folder for Slurm's #SBATCH --output may "
            "not hold blanks or quotes");
  Recipe hides_end = two_node_recipe();
  hides_end.run += "OPENRECIPES_RUN_END\n";
  EXPECT_EQ(refusal(hides_end, options()),
            "two-node.yaml: run: holds the line OPENRECIPES_RUN_END, which the script uses to "
            "end it");
  Recipe no_steps = two_node_recipe();
  no_steps.run = "torchrun pretrain_gpt.py\n";
  EXPECT_NE(refusal(no_steps, options()).find("two-node.yaml: run: no step count to set"),
            std::string::npos);
}

}  // namespace
}  // namespace openrecipes
