// `score` checking a log against what it says about itself (world size, batch, sequence length,
// model sizes), its memory report beside the planner's estimate, and `converge` on Megatron-LM's
// golden values, W&B CSV exports and series offset by one step (docs/run-evidence.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace openrecipes {
namespace {

const std::string kLogs = "tests/fixtures/logs/";
const std::string kArgsLog = kLogs + "megatron_lm_gpt_oss_20b_8xh200_args.log";
const std::string kGpt = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";
const std::string kQwenFlex = "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml";

// The binary's exit code, stdout and stderr together.
testing::ShellRun run(const std::string& arguments) {
  return testing::run_binary(arguments, testing::source_dir(), "2>&1");
}

// The rules of a JSON problem array printed on stderr.
std::vector<std::string> json_rules(const std::string& arguments) {
  testing::ShellRun result =
      testing::run_binary(arguments + " --format json", testing::source_dir(), "2>&1 >/dev/null");
  std::vector<std::string> rules;
  nlohmann::json problems = nlohmann::json::parse(result.output, nullptr, false);
  EXPECT_TRUE(problems.is_array()) << result.output;
  if (!problems.is_array()) return rules;
  for (const auto& problem : problems) rules.push_back(problem["rule"]);
  return rules;
}

TEST(ScoreCli, RefusesFlagsTheLogContradicts) {
  // The issue's example: 32 GPUs and a batch of 64 on a log that says 8 and 128.
  testing::ShellRun wrong = run("score " + kArgsLog + " --gpus 32 --global-batch 64");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_NE(
      wrong.output.find(kArgsLog + ":1:1: world_size: the log says world size (GPUs) 8 (line 1: "
                                   "`using world size: 8, data-parallel size: 4, c...`) but --gpus "
                                   "says 32 (expected 32, found 8)"),
      std::string::npos)
      << wrong.output;
  EXPECT_NE(
      wrong.output.find(":14:1: global_batch_size: the log says global batch (rows per step) "
                        "128 (line 14: `global_batch_size ... 128`) but --global-batch says 64"),
      std::string::npos)
      << wrong.output;
  EXPECT_EQ(wrong.output.find("tokens_per_s_per_gpu"), std::string::npos);  // no score
  EXPECT_EQ(json_rules("score " + kArgsLog + " --gpus 32 --global-batch 64"),
            (std::vector<std::string>{"score.world_size", "score.global_batch"}));
  EXPECT_EQ(json_rules("score " + kArgsLog + " --gpus 8 --row-tokens 4096"),
            std::vector<std::string>{"score.seq_length"});
  EXPECT_EQ(
      json_rules("score " + kArgsLog + " --gpus 8 --model Qwen3.5-122B-A10B"),
      (std::vector<std::string>{"score.hidden_size", "score.num_layers", "score.num_experts"}));
  // The iteration lines' `global batch size:` alone is enough (Megatron-Bridge prints no dump).
  EXPECT_EQ(json_rules("score " + kLogs +
                       "megatron_bridge_llama3_8b_16xh100.log --gpus 16 "
                       "--global-batch 256"),
            std::vector<std::string>{"score.global_batch"});
}

TEST(ScoreCli, RefusesAGptOssLogScoredAgainstAQwenRecipe) {
  testing::ShellRun wrong = run("score " + kArgsLog + " --recipe " + kQwenFlex);
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_NE(wrong.output.find("but the recipe's gpu.count (" + kQwenFlex + ":8:3) says 32"),
            std::string::npos)
      << wrong.output;
  EXPECT_NE(wrong.output.find("hidden_size: the log says hidden size 2880 (line 16: "
                              "`hidden_size ... 2880`) but "
                              "models.yaml's Qwen3.5-122B-A10B (models/qwen3.5-122b-a10b/"
                              "config.json) says 3072 (expected 3072, found 2880)"),
            std::string::npos)
      << wrong.output;
  EXPECT_EQ(json_rules("score " + kArgsLog + " --recipe " + kQwenFlex),
            (std::vector<std::string>{"score.world_size", "score.hidden_size", "score.num_layers",
                                      "score.num_experts"}));
}

TEST(ScoreCli, AcceptsAMatchingLogAndSaysWhatWasCrossChecked) {
  testing::ShellRun ok = run("score " + kArgsLog + " --recipe " + kGpt);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("# log settings cross-checked: world_size 8 (line 1), "
                           "global_batch_size 128 (line 14), micro_batch_size 1 (line 22), "
                           "seq_length 8192 (line 36), hidden_size 2880 (line 16), num_layers 24 "
                           "(line 30), num_experts 32 (line 29)\n"),
            std::string::npos)
      << ok.output;
  EXPECT_NE(ok.output.find("# peak memory per GPU (Megatron-LM memory report, 4 lines from 2 "
                           "ranks): max allocated 110.23 GB (rank 4, line 54), max reserved "
                           "115.94 GB (rank 4, line 54)\n"),
            std::string::npos)
      << ok.output;
  EXPECT_NE(ok.output.find("# planner's memory estimate for TP1 PP2 EP4 DP4: "), std::string::npos)
      << ok.output;
  EXPECT_NE(ok.output.find("result:\n  tokens_per_s_per_gpu: 9448.16\n"), std::string::npos);
  nlohmann::json json = nlohmann::json::parse(
      run("score " + kArgsLog + " --recipe " + kGpt + " --format json").output);
  // The log's peak beside the estimate, as a signed gap from the estimate, with what the
  // estimate leaves out.
  const double estimate = json["memory"]["planner"]["estimate_gb"].get<double>();
  EXPECT_NE(ok.output.find(fmt::format(
                "# the log's max allocated (110.23 GB) is {:+.1f}% from the estimate, which "
                "leaves out: NCCL communicator buffers;",
                100 * (json["memory"]["peak"]["max_allocated_gb"].get<double>() / estimate - 1))),
            std::string::npos)
      << ok.output;
  EXPECT_EQ(json["settings"][0]["term"], "world_size");
  EXPECT_EQ(json["settings"][0]["status"], "cross-checked");
  EXPECT_EQ(json["settings"][0]["stated"]["source"], "the recipe's gpu.count (" + kGpt + ":8:3)");
  EXPECT_NEAR(json["memory"]["peak"]["max_allocated_gb"].get<double>(), 110.2263, 1e-3);
  EXPECT_GT(json["memory"]["planner"]["estimate_gb"].get<double>(), 0);
  EXPECT_EQ(json["memory"]["planner"]["layout"], "TP1 PP2 EP4 DP4");
}

TEST(ScoreCli, SaysWhichTermsALogDoesNotPrint) {
  testing::ShellRun bridge =
      run("score " + kLogs + "megatron_bridge_llama3_8b_16xh100.log --gpus 16");
  EXPECT_EQ(bridge.exit_code, 0) << bridge.output;
  EXPECT_NE(bridge.output.find("# log settings cross-checked: global_batch_size 128 (line 2)\n"
                               "# not printed by the log: world_size, micro_batch_size, "
                               "seq_length, hidden_size, num_layers, num_experts\n"
                               "# peak memory per GPU: the log prints no memory report"),
            std::string::npos)
      << bridge.output;
  // slime prints Megatron's dump; its seq_length and micro_batch_size are not the recipe's terms.
  testing::ShellRun slime =
      run("score " + kLogs + "slime_qwen35_122b_flex_32xh200_args.log --recipe " + kQwenFlex);
  EXPECT_EQ(slime.exit_code, 0) << slime.output;
  EXPECT_NE(slime.output.find("# not checked: micro_batch_size (slime forms micro-batches by "
                              "--max-tokens-per-gpu"),
            std::string::npos)
      << slime.output;
  EXPECT_NE(slime.output.find("world_size 32 (line 2)"), std::string::npos) << slime.output;
}

TEST(ConvergeCli, NoticesASeriesOneStepOffAndAppliesStepOffset) {
  const std::string candidate = kLogs + "megatron_lm_gpt_oss_20b_8xh200.log";
  const std::string by_iteration = kLogs + "megatron_lm_gpt_oss_20b_reference_arm_by_iteration.csv";
  testing::ShellRun off = run("converge " + candidate + " " + by_iteration);
  EXPECT_NE(off.output.find("NOTE: the reference matches far better shifted by -1 step (mean "
                            "relative difference 0.0003 over 20 steps, against 0.0233;"),
            std::string::npos)
      << off.output;
  EXPECT_NE(off.output.find("rerun with --step-offset -1\n"), std::string::npos);
  testing::ShellRun aligned =
      run("converge " + candidate + " " + by_iteration + " --step-offset -1");
  EXPECT_EQ(aligned.exit_code, 0) << aligned.output;
  EXPECT_EQ(aligned.output.find("NOTE:"), std::string::npos) << aligned.output;
  EXPECT_NE(aligned.output.find("(CSV, steps shifted by -1)"), std::string::npos);
  EXPECT_NE(aligned.output.find("    steps: 20\n    result: pass\n"), std::string::npos);
  nlohmann::json json = nlohmann::json::parse(
      run("converge " + candidate + " " + by_iteration + " --format json").output);
  EXPECT_EQ(json["step_offset"]["applied"], 0);
  EXPECT_EQ(json["step_offset"]["suggested"], -1);
  nlohmann::json none =
      nlohmann::json::parse(run("converge " + candidate + " " + kLogs +
                                "megatron_lm_gpt_oss_20b_reference_arm.log --format json")
                                .output);
  EXPECT_TRUE(none["step_offset"]["suggested"].is_null());
  // Shifted the wrong way the runs are two steps apart: steps are missing from both ends.
  testing::ShellRun wrong = run("converge " + candidate + " " + by_iteration + " --step-offset 1");
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(
      wrong.output.find("FAIL: steps missing from the reference (" + by_iteration + "): 0, 1\n"),
      std::string::npos)
      << wrong.output;
  EXPECT_EQ(run("converge " + candidate + " " + by_iteration + " --step-offset x").exit_code, 2);
}

TEST(ConvergeCli, ReadsMegatronLmGoldenValuesAndAWandbExport) {
  const std::string candidate = kLogs + "megatron_lm_gpt_oss_20b_8xh200.log";
  testing::ShellRun golden = run("converge " + candidate + " " + kLogs +
                                 "megatron_lm_gpt_oss_20b_reference_arm_golden_values.json");
  EXPECT_EQ(golden.exit_code, 0) << golden.output;
  EXPECT_NE(golden.output.find("(Megatron-LM golden values JSON (iteration N read as step N-1))"),
            std::string::npos);
  EXPECT_NE(golden.output.find("    steps: 5\n    result: pass\n"), std::string::npos)
      << golden.output;
  testing::ShellRun wandb =
      run("converge " + candidate + " " + kLogs + "wandb_gpt_oss_20b_reference_arm.csv");
  EXPECT_EQ(wandb.exit_code, 0) << wandb.output;
  EXPECT_NE(wandb.output.find("W&B CSV, `gpt-oss-20b-reference-arm-8xh200 - lm loss` by `Step` "
                              "(Megatron's iteration N read as step N-1)"),
            std::string::npos)
      << wandb.output;
  EXPECT_EQ(wandb.output.find("NOTE:"), std::string::npos);
  // Bad input is a problem, never a crash.
  std::string dir = testing::fresh_dir("converge_bad_input");
  std::ofstream(dir + "/negative.json")
      << R"({"lm loss": {"start_step": 1, "end_step": 50, "step_interval": -5, "values": {}}})";
  std::ofstream(dir + "/noloss.csv") << "Step,\"run - train/grad_norm\"\n0,1.0\n";
  std::ofstream(dir + "/text.csv") << "Step,\"run - train/loss\"\n0,1.0\n1,one\n";
  EXPECT_EQ(json_rules("converge " + candidate + " " + dir + "/negative.json"),
            std::vector<std::string>{"loss.golden"});
  EXPECT_EQ(json_rules("converge " + candidate + " " + dir + "/noloss.csv"),
            std::vector<std::string>{"loss.wandb"});
  EXPECT_EQ(json_rules("converge " + candidate + " " + dir + "/text.csv"),
            std::vector<std::string>{"loss.value"});
  testing::ShellRun text = run("converge " + candidate + " " + dir + "/text.csv");
  EXPECT_NE(text.output.find(dir + "/text.csv:3: run - train/loss: loss 'one': expected a number"),
            std::string::npos)
      << text.output;
}

}  // namespace
}  // namespace openrecipes
