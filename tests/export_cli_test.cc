// `openrecipes export` as a user runs it: a recipe to each framework, a layout to a planned draft
// that validates, -o written atomically, and bad input named with exit 1 (2 for usage).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code;
  std::string output;  // stdout and stderr
};

CliRun run(const std::string& arguments) {
  testing::ShellRun result = testing::run_binary(arguments, testing::source_dir(), "2>&1");
  return {result.exit_code, result.output};
}

const char* kGptOss = "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml";

TEST(ExportCli, RecipeToEachFrameworkMatchesTheGoldenFiles) {
  for (const char* target : {"slime", "megatron-lm", "megatron-bridge"}) {
    CliRun result = run(std::string("export ") + kGptOss + " --to " + target);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    std::string extension = std::string(target) == "megatron-bridge" ? ".py" : ".sh";
    std::ifstream golden(testing::source_dir() +
                         "/tests/golden/export/gpt-oss-20b_attune-tp1-pp2-ep4." + target +
                         extension);
    std::ostringstream expected;
    expected << golden.rdbuf();
    EXPECT_EQ(result.output, expected.str()) << target;
  }
}

TEST(ExportCli, LayoutGivesAPlannedDraftThatValidates) {
  fs::path out = fs::path(testing::fresh_dir("export_cli")) / "draft.yaml";
  CliRun result =
      run("export --model gpt-oss-20b --gpu H200 --gpus 16 --layout 'TP1 PP2 EP8' --to slime -o '" +
          out.string() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::string text = testing::read_file(out);
  EXPECT_NE(text.find("status: planned"), std::string::npos);
  EXPECT_NE(text.find("source: openrecipes plan (calibrated speed model; not measured)"),
            std::string::npos);
  EXPECT_EQ(text.find("verified"), std::string::npos);
  CliRun validate = run("validate '" + out.string() + "'");
  EXPECT_EQ(validate.exit_code, 0) << validate.output;
  for (const auto& entry : fs::directory_iterator(out.parent_path())) {
    EXPECT_EQ(entry.path().filename(), "draft.yaml");  // no temporary left behind
  }
}

// A planned draft's command carries its settings recipe's run settings (the gpt-oss recipe's
// --grad-reduce-in-bf16), and its prediction assumes them: the memory plan predicts with that
// flag, not with FP32 gradients (72.2 GB against the command's 65.7 GB).
TEST(ExportCli, ADraftsPredictionAssumesTheSettingsItsCommandCarries) {
  const std::string layout =
      "--model gpt-oss-20b --gpu H200 --gpus 8 --layout 'TP1 PP2 EP4' --recompute full:block:3";
  CliRun draft = run("export --to megatron-lm " + layout);
  ASSERT_EQ(draft.exit_code, 0) << draft.output;
  ASSERT_NE(draft.output.find("--grad-reduce-in-bf16"), std::string::npos) << draft.output;
  const std::string key = "\nprediction:\n  tokens_per_s_per_gpu: ";
  std::size_t at = draft.output.find(key);
  ASSERT_NE(at, std::string::npos) << draft.output;
  at = draft.output.find("  memory_bytes: ", at);
  ASSERT_NE(at, std::string::npos) << draft.output;
  const double drafted = std::stod(draft.output.substr(at + 16));
  CliRun plan = run("plan --format json --grad-reduce-in-bf16 " + layout);
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_EQ(drafted, nlohmann::json::parse(plan.output)["memory_bytes"].get<double>());
  CliRun fp32 = run("plan --format json " + layout);
  EXPECT_LT(drafted, nlohmann::json::parse(fp32.output)["memory_bytes"].get<double>());
}

// The run settings plan takes, given to export, join the draft's command in every framework, on
// top of its settings recipe's (gpt-oss's --grad-reduce-in-bf16), and the draft's prediction is
// plan's for the same flags: HybridEP and the overlaps change it.
TEST(ExportCli, RunSettingsGivenJoinTheDraftAndItsPrediction) {
  const std::string layout =
      "--model gpt-oss-20b --gpu H200 --gpus 8 --layout 'TP2 EP4' --dispatcher flex";
  const std::string settings =
      " --moe-flex-dispatcher-backend hybridep --tp-comm-overlap "
      "--overlap-moe-expert-parallel-comm";
  auto predicted = [](const std::string& draft) {
    const std::string key = "\nprediction:\n  tokens_per_s_per_gpu: ";
    std::size_t at = draft.find(key);
    return at == std::string::npos ? -1.0 : std::stod(draft.substr(at + key.size()));
  };
  CliRun plain = run("export --to megatron-lm " + layout);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(plain.output.find("--moe-flex-dispatcher-backend"), std::string::npos);
  for (const char* target : {"slime", "megatron-lm"}) {
    CliRun draft = run(std::string("export --to ") + target + " " + layout + settings);
    ASSERT_EQ(draft.exit_code, 0) << target << ": " << draft.output;
    for (const char* flag : {"--moe-flex-dispatcher-backend hybridep", "--tp-comm-overlap",
                             "--overlap-moe-expert-parallel-comm", "--grad-reduce-in-bf16",
                             "--moe-token-dispatcher-type flex"})
      EXPECT_NE(draft.output.find(flag), std::string::npos) << target << ": " << flag;
    CliRun plan = run("plan --format json --grad-reduce-in-bf16 " + layout + settings);
    ASSERT_EQ(plan.exit_code, 0) << plan.output;
    const double planned = nlohmann::json::parse(plan.output)["tokens_per_s_per_gpu"].get<double>();
    EXPECT_NEAR(predicted(draft.output), planned, 0.05 + 1e-6 * planned) << target;
    EXPECT_NE(predicted(draft.output), predicted(plain.output)) << target;
  }
  CliRun bridge = run("export --to megatron-bridge " + layout + settings);
  ASSERT_EQ(bridge.exit_code, 0) << bridge.output;
  for (const char* line :
       {"cfg.model.moe_flex_dispatcher_backend = \"hybridep\"", "cfg.model.tp_comm_overlap = True",
        "cfg.model.overlap_moe_expert_parallel_comm = True", "cfg.ddp.grad_reduce_in_fp32 = False"})
    EXPECT_NE(bridge.output.find(line), std::string::npos) << line << "\n" << bridge.output;
  // A switch given replaces the settings recipe's argument for the same setting: the Qwen3.5
  // recipes run --accumulate-allreduce-grads-in-fp32, which --grad-reduce-in-bf16 switches off.
  CliRun qwen = run(
      "export --to megatron-lm --model Qwen3.5-122B-A10B --gpu H200 --gpus 32 --layout 'TP1 PP4 "
      "EP8' --recompute full:uniform:2 --grad-reduce-in-bf16");
  ASSERT_EQ(qwen.exit_code, 0) << qwen.output;
  EXPECT_NE(qwen.output.find("--grad-reduce-in-bf16"), std::string::npos) << qwen.output;
  EXPECT_EQ(qwen.output.find("--accumulate-allreduce-grads-in-fp32"), std::string::npos)
      << qwen.output;
}

// A switch the settings recipe runs does not stop a layout plan allows: with the shared-expert
// overlap recipe as the best Qwen3.5 one, the flex dispatcher and the EP all-to-all overlap
// (which Megatron-Core refuses beside that switch, rule mesh.shared_expert_overlap) export with
// the switch left out and named, predicted as plan predicts the same flags; an alltoall layout
// keeps the recipe's switch, says so, and is predicted as plan predicts it with the switch.
TEST(ExportCli, ASwitchOfTheSettingsRecipeIsLeftOutWhereTheLayoutBreaksARuleWithIt) {
  fs::path root = testing::catalog_copy("export_settings_switches");
  for (const char* faster : {"attune-tp1-pp4-ep8-rc2.yaml", "attune-tp1-pp4-ep8-flex.yaml"})
    fs::remove(root / "recipes" / "qwen3.5-122b-a10b" / "h200" / faster);
  const std::string model = " --model Qwen3.5-122B-A10B --gpu H200 --gpus 32";
  auto in_copy = [&](const std::string& arguments) {
    return testing::run_binary(arguments, root.string(), "2>&1");
  };
  auto predicted = [](const std::string& draft) {
    const std::string key = "\nprediction:\n  tokens_per_s_per_gpu: ";
    std::size_t at = draft.find(key);
    return at == std::string::npos ? -1.0 : std::stod(draft.substr(at + key.size()));
  };
  const std::string shared = "--moe-shared-expert-overlap";
  const std::string alltoall = " --layout 'TP1 PP4 EP8' --recompute full:uniform:2";
  for (const std::string& flags : {alltoall + " --dispatcher flex",
                                   std::string(" --layout 'TP1 PP4 VPP2 EP8' --recompute selective "
                                               "--overlap-moe-expert-parallel-comm"),
                                   alltoall}) {
    const bool kept = flags == alltoall;
    testing::ShellRun plan =
        in_copy("plan --format json" + model + flags + (kept ? " " + shared : ""));
    ASSERT_EQ(plan.exit_code, 0) << flags << ": " << plan.output;
    testing::ShellRun draft = in_copy("export --to megatron-lm" + model + flags);
    ASSERT_EQ(draft.exit_code, 0) << flags << ": " << draft.output;
    EXPECT_NEAR(predicted(draft.output),
                nlohmann::json::parse(plan.output)["tokens_per_s_per_gpu"].get<double>(), 0.05)
        << flags;
    EXPECT_EQ(draft.output.find("\n    " + shared) != std::string::npos, kept)
        << flags << ": " << draft.output;
    EXPECT_EQ(draft.output.find("# Run settings from the settings recipe, not given to export: " +
                                shared) != std::string::npos,
              kept)
        << flags << ": " << draft.output;
    EXPECT_EQ(draft.output.find("# Not carried: " + shared + ", which the settings recipe runs") !=
                  std::string::npos,
              !kept)
        << flags << ": " << draft.output;
    EXPECT_EQ(draft.output.find("mesh.shared_expert_overlap") != std::string::npos, !kept)
        << flags << ": " << draft.output;
  }
}

// The export command recommend prints (its layout and its starting recipe's run settings) runs
// as printed.
TEST(ExportCli, TheCommandRecommendPrintsRuns) {
  CliRun recommend = run("recommend --model gpt-oss-20b --gpu H200 --gpus 16");
  ASSERT_EQ(recommend.exit_code, 0) << recommend.output;
  const std::string key = "next: openrecipes ";
  std::size_t at = recommend.output.find(key);
  ASSERT_NE(at, std::string::npos) << recommend.output;
  std::string command = recommend.output.substr(at + key.size());
  command = command.substr(0, command.find('\n'));
  EXPECT_NE(command.find("--grad-reduce-in-bf16"), std::string::npos) << command;
  CliRun exported = run(command);
  EXPECT_EQ(exported.exit_code, 0) << command << "\n" << exported.output;
  // Given and in the settings recipe's run too: written once.
  auto count = [](const std::string& text, const std::string& word) {
    int n = 0;
    for (std::size_t i = text.find(word); i != std::string::npos; i = text.find(word, i + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(exported.output, "--grad-reduce-in-bf16"), 1) << exported.output;
  const std::string bridge_command =
      command.substr(0, command.find(" --to ")) + " --to megatron-bridge";
  CliRun bridge = run(bridge_command);
  ASSERT_EQ(bridge.exit_code, 0) << bridge.output;
  EXPECT_EQ(count(bridge.output, "cfg.ddp.grad_reduce_in_fp32 = False"), 1) << bridge.output;
}

// Each low precision gives the same settings in the three drafts, and the planned recipe
// validates: its run sets what run.precision asks of that precision.
TEST(ExportCli, EachPrecisionGivesDraftsThatAgreeAndValidate) {
  struct Case {
    const char* precision;
    const char* flag;    // in the slime and Megatron-LM commands
    const char* preset;  // Megatron-Bridge's cfg.mixed_precision
  };
  for (const Case& c :
       {Case{"fp8", "--fp8-recipe tensorwise", "bf16_with_fp8_current_scaling_mixed"},
        Case{"mxfp8", "--fp8-recipe mxfp8", "bf16_with_mxfp8_mixed"},
        Case{"nvfp4", "--fp4-format e2m1", "bf16_with_nvfp4_mixed"}}) {
    const std::string layout = std::string("export --model gpt-oss-20b --gpu B200 --gpus 8 ") +
                               "--layout 'TP1 EP8' --precision " + c.precision;
    for (const char* target : {"slime", "megatron-lm"}) {
      fs::path out = fs::path(testing::fresh_dir("export_precision")) / "draft.yaml";
      CliRun result = run(layout + " --to " + target + " -o '" + out.string() + "'");
      ASSERT_EQ(result.exit_code, 0) << c.precision << " " << target << ": " << result.output;
      std::string text = testing::read_file(out);
      EXPECT_NE(text.find(c.flag), std::string::npos) << c.precision << " " << target;
      EXPECT_NE(text.find(std::string("precision: ") + c.precision), std::string::npos);
      CliRun validate = run("validate '" + out.string() + "'");
      EXPECT_EQ(validate.exit_code, 0) << c.precision << " " << target << ": " << validate.output;
    }
    CliRun bridge = run(layout + " --to megatron-bridge");
    ASSERT_EQ(bridge.exit_code, 0) << bridge.output;
    EXPECT_NE(bridge.output.find(std::string("cfg.mixed_precision = \"") + c.preset + "\""),
              std::string::npos)
        << c.precision;
  }
  CliRun hopper = run(
      "export --model gpt-oss-20b --gpu H200 --gpus 8 --layout 'TP1 EP8' --precision nvfp4 --to "
      "slime");
  EXPECT_EQ(hopper.exit_code, 1) << hopper.output;
  EXPECT_NE(hopper.output.find("H200 has no tensor cores for it"), std::string::npos)
      << hopper.output;
}

// A hybrid model's draft builds Megatron-LM's hybrid stack: the config's layer order as
// --hybrid-override-pattern, the Mamba-2 sizes, squared ReLU and no position embedding.
TEST(ExportCli, HybridModelGivesTheHybridStack) {
  const std::string config =
      testing::source_dir() + "/tests/fixtures/configs/nemotron-3-nano-30b-a3b/config.json";
  std::ifstream in(config);
  const nlohmann::json hf = nlohmann::json::parse(in);
  const std::string pattern = hf.at("hybrid_override_pattern").get<std::string>();
  ASSERT_EQ(static_cast<int>(pattern.size()), hf.at("num_hidden_layers").get<int>());
  CliRun result = run("export --model '" + config +
                      "' --gpu H200 --gpus 8 --layout 'TP1 EP8' --to megatron-lm");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto flag = [&](const char* name, const char* key) {
    return fmt::format("{} {}", name, hf.at(key).get<int>());
  };
  for (const std::string& expected :
       {std::string("  pretrain_mamba.py \\\n"), "--hybrid-override-pattern '" + pattern + "'",
        flag("--mamba-num-heads", "mamba_num_heads"), flag("--mamba-head-dim", "mamba_head_dim"),
        flag("--mamba-state-dim", "ssm_state_size"), flag("--mamba-num-groups", "n_groups"),
        std::string("--squared-relu"), std::string("--position-embedding-type none")}) {
    EXPECT_NE(result.output.find(expected), std::string::npos) << expected;
  }
  EXPECT_EQ(result.output.find("--swiglu"), std::string::npos);
  EXPECT_EQ(result.output.find("  pretrain_gpt.py \\\n"), std::string::npos);  // the entry
}

TEST(ExportCli, LayoutToBridgeSaysPlanned) {
  CliRun result =
      run("export --model gpt-oss-20b --gpu H200 --gpus 16 --layout 'TP1 PP2 EP8' --to "
          "megatron-bridge");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("def gpt_oss_20b_sft_config() -> ConfigContainer:"),
            std::string::npos);
  EXPECT_NE(result.output.find("Planned, not measured"), std::string::npos);
}

TEST(ExportCli, IllegalLayoutNamesEachRule) {
  CliRun result =
      run("export --model gpt-oss-20b --gpu H200 --gpus 16 --layout 'TP3 PP2 EP5' --to slime");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("mesh.tp_heads"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("mesh.ep"), std::string::npos) << result.output;
}

TEST(ExportCli, BadInputIsNamed) {
  CliRun model = run("export --model no-such-model --gpu H200 --gpus 8 --layout TP1 --to slime");
  EXPECT_EQ(model.exit_code, 1);
  EXPECT_NE(model.output.find("gpt-oss-20b"), std::string::npos) << model.output;
  CliRun gpu = run("export --model gpt-oss-20b --gpu Z100 --gpus 8 --layout TP1 --to slime");
  EXPECT_EQ(gpu.exit_code, 1);
  EXPECT_NE(gpu.output.find("H200"), std::string::npos) << gpu.output;
  CliRun target = run(std::string("export ") + kGptOss + " --to deepspeed");
  EXPECT_EQ(target.exit_code, 2);
  EXPECT_NE(target.output.find("megatron-bridge"), std::string::npos) << target.output;
  CliRun missing = run("export no/such/recipe.yaml --to slime");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  CliRun neither = run("export --to slime");
  EXPECT_EQ(neither.exit_code, 2) << neither.output;
  // A recipe states its own model, GPUs and layout: a layout flag beside it is refused, not
  // silently ignored (the draft was the recipe's, whatever --gpus said).
  CliRun beside = run(std::string("export ") + kGptOss +
                      " --to megatron-lm --gpus 16 --pipeline-layout x --precision nvfp4");
  EXPECT_EQ(beside.exit_code, 2) << beside.output;
  EXPECT_NE(beside.output.find("found --gpus, --pipeline-layout, --precision"), std::string::npos)
      << beside.output;
  CliRun setting = run(std::string("export ") + kGptOss + " --to slime --tp-comm-overlap");
  EXPECT_EQ(setting.exit_code, 2) << setting.output;
  EXPECT_NE(setting.output.find("found --tp-comm-overlap"), std::string::npos) << setting.output;
  CliRun backend =
      run("export --model gpt-oss-20b --gpu H200 --gpus 8 --layout 'TP1 EP8' --dispatcher flex "
          "--moe-flex-dispatcher-backend nccl --to slime");
  EXPECT_EQ(backend.exit_code, 1) << backend.output;
  EXPECT_NE(backend.output.find("--moe-flex-dispatcher-backend"), std::string::npos)
      << backend.output;
  EXPECT_NE(backend.output.find("deepep or hybridep"), std::string::npos) << backend.output;
}

TEST(ExportCli, OutputIsNeverADeviceFifoOrLink) {
  fs::path dir = testing::fresh_dir("export_cli_special");
  fs::path fifo = dir / "fifo.yaml", link = dir / "link.yaml", target = dir / "target.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(target) << "keep\n";
  fs::create_symlink(target, link);
  for (const fs::path& out : {fifo, link, dir}) {
    CliRun result = run(std::string("export ") + kGptOss + " --to slime -o '" + out.string() + "'");
    EXPECT_EQ(result.exit_code, 1) << out;
    EXPECT_NE(result.output.find("exists and is not a regular file"), std::string::npos)
        << result.output;
  }
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  std::ifstream kept(target);
  std::string text((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "keep\n");
}

}  // namespace
}  // namespace openrecipes
