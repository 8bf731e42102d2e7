// `plan`, `recommend` and `export --layout` as a user runs them: the same bad flags refused by
// all three with the same problem (layout_request.h), and --root from another folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

std::string read_all(const fs::path& path) { return testing::read_file(path); }

// Runs the binary in `directory`, stdout and stderr kept apart.
CliRun run(const std::string& arguments, const std::string& directory = testing::source_dir()) {
  // One file per test process: ctest runs the tests in parallel.
  fs::path err =
      fs::path(::testing::TempDir()) / ("plan_cli_stderr." + std::to_string(::getpid()) + ".txt");
  testing::ShellRun result = testing::run_binary(arguments, directory, "2>'" + err.string() + "'");
  return {result.exit_code, result.output, read_all(err)};
}

const std::string kExport = " --to slime";

// plan and export on the same layout flags (recommend takes no --layout).
std::vector<CliRun> run_both(const std::string& flags) {
  return {run("plan " + flags), run("export " + flags + kExport)};
}

void expect_same_refusal(const std::vector<CliRun>& runs, const std::string& words) {
  for (const CliRun& r : runs) {
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
    EXPECT_EQ(r.err, runs.front().err);
  }
}

TEST(PlanCli, PartialNodeIsRefusedByPlanRecommendAndExport) {
  // export used to write --actor-num-gpus-per-node 12 for 8-GPU nodes and exit 0.
  expect_same_refusal(run_both("--model gpt-oss-20b --gpu H200 --gpus 12 --layout 'TP1 PP3 EP4'"),
                      "--gpus: 12: not whole nodes of 8 H200 GPUs");
  expect_same_refusal(
      {run("plan --model gpt-oss-20b --gpu H200 --gpus 12"),
       run("recommend --model gpt-oss-20b --gpu H200 --gpus 12"),
       run("export --model gpt-oss-20b --gpu H200 --gpus 12 --layout 'TP1 PP3 EP4'" + kExport)},
      "expected a multiple of the 8 GPUs per node (or fewer), found 12");
}

TEST(PlanCli, BadLayoutFlagsGiveTheSameProblemEverywhere) {
  const std::string base = "--model gpt-oss-20b --gpu H200 --gpus 16 ";
  expect_same_refusal(run_both(base + "--layout 'TP1 PP2 EP8' --dispatcher broadcast"),
                      "--dispatcher: broadcast: not a token dispatcher");
  expect_same_refusal(run_both(base + "--layout 'TP1 PP2 EP8 DP4'"),
                      "DP is implied by W / (TP x PP x CP)");
  expect_same_refusal(run_both(base + "--layout 'TP1 XP2'"), "unknown layout word 'XP2'");
  expect_same_refusal(run_both(base + "--layout 'TP1 PP2 EP8' --recompute partial"),
                      "recompute 'partial'");
  expect_same_refusal(run_both(base + "--layout 'TP3 PP2 EP5'"), "mesh.tp_heads");
}

TEST(PlanCli, PlanPrintsThePlacementItChoseForDeepSeekV3OnPp8Vpp2) {
  // 61 layers over 16 chunks: no even split, no account-for flag and no first/last split fits
  // (all would need an even count); plan takes the most balanced string and says so.
  const std::string flags =
      "--model tests/fixtures/configs/deepseek-v3.json --gpu H200 --gpus 256 "
      "--layout 'TP1 PP8 VPP2 EP32'";
  CliRun r = run("plan " + flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("placement: layout Et*3|(t*4|)*14,ttL (chosen: PP8 x VPP2 does not divide "
                       "the layers; the most balanced placement Megatron-LM accepts, as "
                       "--pipeline-layout 'Et*3|(t*4|)*14,ttL')"),
            std::string::npos)
      << r.out;
  CliRun json = run("plan " + flags + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["placement_chosen"], true);
  EXPECT_EQ(j["layout"]["pipeline_layout"], "Et*3|(t*4|)*14,ttL");
  // The same placement given explicitly is kept, not chosen.
  r = run("plan " + flags + " --pipeline-layout 'Et*3|(t*4|)*14,ttL'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("placement: layout Et*3|(t*4|)*14,ttL\n"), std::string::npos) << r.out;
  // The account-for flags on PP4 VPP3 of Qwen3.5's 48 layers: 50 counted layers over 4 stages.
  expect_same_refusal(run_both("--model Qwen3.5-122B-A10B --gpu H200 --gpus 32 --layout "
                               "'TP1 PP4 VPP3 EP8' --account-for-embedding-in-pipeline-split "
                               "--account-for-loss-in-pipeline-split"),
                      "mesh.pp");
  expect_same_refusal(run_both("--model Qwen3.5-122B-A10B --gpu H200 --gpus 32 --layout "
                               "'TP1 PP4 EP8' --pipeline-layout 'Et*12|t*12|t*12|t*12'"),
                      "--pipeline-layout: pipeline layout in 'Et*12|t*12|t*12|t*12': the layout "
                      "must start with the embedding and end with the loss");
}

// --explain's example of each rejection is a layout `plan --layout` takes back and refuses by the
// same rule: mesh.vpp's example on DeepSeek-V3's 61 layers hangs on its layer split, which the
// example used to leave out (and "TP1 PP2 VPP2" alone is refused by another rule).
TEST(PlanCli, ExplainsVppExampleCarriesItsPlacementAndReproduces) {
  const std::string model = "--model tests/fixtures/configs/deepseek-v3.json --gpu H200 --gpus 256";
  CliRun r = run("plan " + model + " --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line, sizes, split;
  while (std::getline(lines, line)) {
    if (line.rfind("mesh.vpp ", 0) != 0) continue;
    std::size_t from = line.find("TP"), at = line.find(" split ");
    ASSERT_NE(from, std::string::npos) << line;
    ASSERT_NE(at, std::string::npos) << "the example names no layer split: " << line;
    sizes = line.substr(from, at - from);
    split = line.substr(at + 7, line.find(' ', at + 7) - at - 7);
    EXPECT_NE(line.find("(expected a common divisor of "), std::string::npos) << line;
    EXPECT_EQ(line.find(", 0 and"), std::string::npos) << "PP 2 has no middle stage: " << line;
  }
  ASSERT_FALSE(sizes.empty()) << r.out;
  CliRun again = run("plan " + model + " --layout '" + sizes + "' --layer-split " + split);
  EXPECT_EQ(again.exit_code, 1) << again.out;
  EXPECT_NE(again.err.find("mesh.vpp"), std::string::npos) << again.err;

  // An example with no placement is the even split, which plan --layout replaces by the most
  // balanced placement: the table says "even split" and what plan --layout does instead.
  CliRun qwen = run("plan --model Qwen3.5-122B-A10B --gpu H200 --gpus 32 --explain");
  ASSERT_EQ(qwen.exit_code, 0) << qwen.err;
  std::istringstream rows(qwen.out);
  bool marked = false;
  while (std::getline(rows, line)) {
    if (line.rfind("mesh.pp ", 0) == 0 || line.rfind("mesh.vpp ", 0) == 0) {
      EXPECT_NE(line.find(" even split "), std::string::npos) << line;
      marked = true;
    }
  }
  EXPECT_TRUE(marked) << qwen.out;
  EXPECT_NE(qwen.out.find("plan --layout with no placement takes the most balanced placement"),
            std::string::npos)
      << qwen.out;
}

TEST(PlanCli, GradReduceInBf16HalvesTheGradientsHeld) {
  // Megatron-LM's --grad-reduce-in-bf16: each stage holds 2 bytes of gradient per parameter, not
  // 4; weights stay as they were.
  const std::string flags =
      "plan --model gpt-oss-20b --gpu H200 --gpus 8 --layout 'TP1 PP2 EP4' --format json";
  CliRun fp32 = run(flags);
  CliRun bf16 = run(flags + " --grad-reduce-in-bf16");
  ASSERT_EQ(fp32.exit_code, 0) << fp32.err;
  ASSERT_EQ(bf16.exit_code, 0) << bf16.err;
  nlohmann::json a = nlohmann::json::parse(fp32.out), b = nlohmann::json::parse(bf16.out);
  ASSERT_EQ(a["memory_stages"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(b["memory_stages"][i]["gradients_bytes"].get<double>(),
                     a["memory_stages"][i]["gradients_bytes"].get<double>() / 2);
    EXPECT_DOUBLE_EQ(b["memory_stages"][i]["weights_bytes"].get<double>(),
                     a["memory_stages"][i]["weights_bytes"].get<double>());
  }
  EXPECT_LT(b["memory_bytes"].get<double>(), a["memory_bytes"].get<double>());
  // Both outputs say which run settings they assume, and the catalog's recipe of this layout ran
  // with --grad-reduce-in-bf16: its figure is shown as another run's where the settings differ.
  EXPECT_EQ(a["run_settings"], nlohmann::json::array());
  EXPECT_EQ(b["run_settings"], nlohmann::json::array({"--grad-reduce-in-bf16"}));
  EXPECT_EQ(a["measured"]["run_settings"], nlohmann::json::array({"--grad-reduce-in-bf16"}));
  const std::string text = "plan --model gpt-oss-20b --gpu H200 --gpus 8 --layout 'TP1 PP2 EP4'";
  CliRun plain = run(text), same = run(text + " --grad-reduce-in-bf16");
  EXPECT_NE(plain.out.find("run settings: Megatron-LM's defaults\n"), std::string::npos)
      << plain.out;
  EXPECT_NE(plain.out.find("run with other settings: --grad-reduce-in-bf16"), std::string::npos)
      << plain.out;
  EXPECT_NE(same.out.find("run settings: --grad-reduce-in-bf16\n"), std::string::npos) << same.out;
  EXPECT_EQ(same.out.find("run with other settings"), std::string::npos) << same.out;
}

// Qwen3-30B-A3B on two H100 nodes: the search ranks flex (DeepEP) where an EP group crosses the
// nodes and it is predicted faster; `--dispatcher alltoall` (a stack without DeepEP) keeps the
// search to alltoall; a dispatcher that is none is refused without --layout too.
TEST(PlanCli, TheSearchTriesBothDispatchersUnlessOneIsNamed) {
  const std::string flags =
      "plan --model Qwen3-30B-A3B --gpu H100 --gpus 16 --top 200 --format json";
  CliRun both = run(flags), alltoall = run(flags + " --dispatcher alltoall");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  ASSERT_EQ(alltoall.exit_code, 0) << alltoall.err;
  auto dispatchers = [](const CliRun& r) {
    std::map<std::string, int> count;
    const nlohmann::json plan = nlohmann::json::parse(r.out);
    for (const nlohmann::json& l : plan["layouts"]) {
      const nlohmann::json& layout = l["layout"];
      ++count[layout["dispatcher"].get<std::string>()];
      if (layout["dispatcher"] == "flex") {
        EXPECT_GT(layout["ep"].get<int>(), 8) << layout.dump();
      }
    }
    return count;
  };
  EXPECT_GT(dispatchers(both)["flex"], 0);
  std::map<std::string, int> only = dispatchers(alltoall);
  EXPECT_EQ(only.size(), 1u);
  EXPECT_EQ(only["alltoall"], 200);
  CliRun text = run("plan --model Qwen3-30B-A3B --gpu H100 --gpus 16 --top 200");
  EXPECT_NE(text.out.find(" flex (DeepEP) "), std::string::npos) << text.out;
  CliRun bad = run("plan --model Qwen3-30B-A3B --gpu H100 --gpus 16 --dispatcher broadcast");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--dispatcher: broadcast: not a token dispatcher"), std::string::npos)
      << bad.err;
}

// A dispatcher no layout could use is refused with the reason, not searched to "0 legal" or
// dropped: allgather under the EP all-to-all overlap, and any dispatcher or flex backend for a
// dense model, with or without --layout.
TEST(PlanCli, ADispatcherNoLayoutCanUseIsRefused) {
  CliRun overlap =
      run("plan --model Qwen3-30B-A3B --gpu H100 --gpus 16 --overlap-moe-expert-parallel-comm "
          "--dispatcher allgather");
  EXPECT_EQ(overlap.exit_code, 1) << overlap.out;
  EXPECT_NE(overlap.err.find("mesh.ep_a2a_overlap"), std::string::npos) << overlap.err;
  EXPECT_NE(overlap.err.find("allgather"), std::string::npos) << overlap.err;
  CliRun overlap_flex =
      run("plan --model Qwen3-30B-A3B --gpu H100 --gpus 16 --overlap-moe-expert-parallel-comm "
          "--dispatcher flex --top 1");
  EXPECT_EQ(overlap_flex.exit_code, 0) << overlap_flex.err;
  for (const std::string& flags :
       {std::string("--dispatcher flex"), std::string("--layout 'TP2' --dispatcher alltoall"),
        std::string("--moe-flex-dispatcher-backend hybridep"),
        std::string("--moe-shared-expert-overlap"),
        std::string("--overlap-moe-expert-parallel-comm")}) {
    // tune propose takes the run settings, not --dispatcher or --layout.
    const bool setting = flags.rfind("--dispatcher", 0) != 0 && flags.rfind("--layout", 0) != 0;
    for (const char* command : {"plan", "tune propose"}) {
      if (!setting && std::string(command) != "plan") continue;
      CliRun dense = run(std::string(command) + " --model Llama-3-8B --gpu H100 --gpus 8 " + flags);
      EXPECT_EQ(dense.exit_code, 1) << command << " " << flags << dense.out;
      EXPECT_NE(dense.err.find("Llama-3-8B is a dense model: no experts, so no token dispatcher"),
                std::string::npos)
          << command << " " << flags << dense.err;
    }
  }
  // The two expert overlaps exclude each other, and Qwen3.5's shared expert holds its overlap to
  // alltoall (mesh.shared_expert_overlap): refused before any search.
  for (const char* flags : {"--moe-shared-expert-overlap --overlap-moe-expert-parallel-comm",
                            "--moe-shared-expert-overlap --dispatcher flex"}) {
    CliRun shared =
        run(std::string("plan --model Qwen3.5-122B-A10B --gpu H200 --gpus 32 ") + flags);
    EXPECT_EQ(shared.exit_code, 1) << flags << shared.out;
    EXPECT_EQ(shared.out, "") << flags;
    EXPECT_NE(shared.err.find("mesh.shared_expert_overlap"), std::string::npos)
        << flags << shared.err;
  }
  // With nothing legal the search says so, rather than that nothing fits: one GPU has no EP for
  // the overlap to hide; Qwen3.5-122B-A10B's legal layouts on 8 H200 all run out of memory.
  CliRun one_gpu =
      run("plan --model gpt-oss-20b --gpu H200 --gpus 1 --overlap-moe-expert-parallel-comm");
  EXPECT_EQ(one_gpu.exit_code, 1) << one_gpu.err;
  EXPECT_NE(one_gpu.out.find("0 legal"), std::string::npos) << one_gpu.out;
  EXPECT_NE(one_gpu.out.find("no layout is legal under these run settings"), std::string::npos)
      << one_gpu.out;
  CliRun no_fit = run("plan --model Qwen3.5-122B-A10B --gpu H200 --gpus 8");
  EXPECT_EQ(no_fit.exit_code, 1) << no_fit.err;
  EXPECT_EQ(no_fit.out.find(" 0 legal"), std::string::npos) << no_fit.out;
  EXPECT_NE(no_fit.out.find("no legal layout is predicted to fit in memory"), std::string::npos)
      << no_fit.out;
  // The flex backend beside another dispatcher would go unused, also beside a layout's default
  // (alltoall).
  for (const char* command : {"plan", "export --to slime"}) {
    CliRun implicit = run(std::string(command) +
                          " --model Qwen3-30B-A3B --gpu H100 --gpus 16 --layout 'TP1 EP8' "
                          "--moe-flex-dispatcher-backend hybridep");
    EXPECT_EQ(implicit.exit_code, 1) << command << implicit.out;
    EXPECT_EQ(implicit.out, "") << command;
    EXPECT_NE(implicit.err.find("given with a layout on the alltoall dispatcher"),
              std::string::npos)
        << command << implicit.err;
  }
  CliRun backend =
      run("plan --model Qwen3-30B-A3B --gpu H100 --gpus 16 --dispatcher alltoall "
          "--moe-flex-dispatcher-backend hybridep");
  EXPECT_EQ(backend.exit_code, 1) << backend.out;
  EXPECT_NE(backend.err.find("--moe-flex-dispatcher-backend: the backend of the flex dispatcher, "
                             "given with --dispatcher alltoall"),
            std::string::npos)
      << backend.err;
}

// A missing flag is a usage error told before any catalog is looked for, read or fitted.
TEST(PlanCli, AMissingFlagIsToldBeforeTheCatalogIsRead) {
  std::string nowhere = testing::fresh_dir("plan_missing_flag");
  testing::ShellRun missing =
      testing::run_binary("plan --model gpt-oss-20b --gpu H100", nowhere, "2>&1");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("give --model M --gpu G --gpus N"), std::string::npos)
      << missing.output;
  // With every flag given, the missing catalog is what is told.
  testing::ShellRun no_catalog =
      testing::run_binary("plan --model gpt-oss-20b --gpu H100 --gpus 8", nowhere, "2>&1");
  EXPECT_EQ(no_catalog.exit_code, 2) << no_catalog.output;
  EXPECT_EQ(no_catalog.output.find("give --model M"), std::string::npos) << no_catalog.output;
}

// A setting of one layout given without --layout would be silently unused by the search, and an
// empty --layout would silently search: both are usage errors. (--dispatcher without --layout
// names the search's dispatcher: TheSearchTriesBothDispatchersUnlessOneIsNamed.)
TEST(PlanCli, LayoutSettingsNeedALayoutAndALayoutNeedsText) {
  const std::string base = "plan --model gpt-oss-20b --gpu H200 --gpus 8 ";
  const std::vector<std::string> flags = {"--recompute full", "--layer-split 12,12",
                                          "--pipeline-layout 'Et*12|t*12L'",
                                          "--account-for-loss-in-pipeline-split"};
  for (const std::string& flag : flags) {
    CliRun r = run(base + flag);
    EXPECT_EQ(r.exit_code, 2) << flag << r.err;
    EXPECT_NE(r.err.find(flag.substr(0, flag.find(' '))), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--layout"), std::string::npos) << r.err;
  }
  CliRun empty = run(base + "--layout ''");
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_NE(empty.err.find("found an empty text"), std::string::npos) << empty.err;
  // Blanks alone are the same mistake, and so a usage error too (they were a layout problem,
  // exit 1), in plan and export alike.
  for (const std::string& command : {base, std::string("export --to slime --model gpt-oss-20b "
                                                       "--gpu H200 --gpus 8 ")}) {
    CliRun blank = run(command + "--layout '   '");
    EXPECT_EQ(blank.exit_code, 2) << command << blank.err;
    EXPECT_NE(blank.err.find("found only blanks"), std::string::npos) << command << blank.err;
  }
  EXPECT_EQ(run(base + "--layout 'TP1 PP2 EP4' --recompute full").exit_code, 0);
}

// recommend's `next:` line is a command the user can paste as printed (it used to end in
// "--to slime|megatron-lm|megatron-bridge", a shell pipeline), for the framework the starting
// recipe ran on; and the resizing rules' texts start in one column however long the rule's id.
TEST(PlanCli, RecommendsNextCommandRunsAsPrinted) {
  CliRun rec = run("recommend --model gpt-oss-20b --gpu H200 --gpus 16");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::size_t next = rec.out.find("\nnext: openrecipes ");
  ASSERT_NE(next, std::string::npos) << rec.out;
  std::size_t start = next + std::string("\nnext: openrecipes ").size();
  std::string command = rec.out.substr(start, rec.out.find('\n', start) - start);
  EXPECT_NE(command.find(" --to slime"), std::string::npos) << command;  // a slime recipe
  EXPECT_EQ(command.find('|'), std::string::npos) << command;
  CliRun exported = run(command);
  EXPECT_EQ(exported.exit_code, 0) << command << "\n" << exported.err;
  EXPECT_NE(exported.out.find("# slime draft: gpt-oss-20b TP1 PP2 EP4 DP8 on 16 x H200"),
            std::string::npos)
      << exported.out;

  std::istringstream lines(rec.out.substr(rec.out.find("resizing rules:\n")));
  std::string line;
  std::size_t text_column = std::string::npos;
  int rules = 0;
  std::getline(lines, line);
  while (std::getline(lines, line) && !line.empty()) {
    std::size_t rule_end = line.find(' ', line.find_first_not_of(' ', 7));
    std::size_t column = line.find_first_not_of(' ', rule_end);
    if (text_column == std::string::npos) text_column = column;
    EXPECT_EQ(column, text_column) << line;
    ++rules;
  }
  EXPECT_GT(rules, 10);

  // A node size other than the GPU type's travels with the command (export used to have no
  // --per-node, and the draft came out for 8-GPU nodes).
  rec = run("recommend --model gpt-oss-20b --gpu H200 --gpus 16 --per-node 4");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  start = rec.out.find("\nnext: openrecipes ");
  ASSERT_NE(start, std::string::npos) << rec.out;
  start += std::string("\nnext: openrecipes ").size();
  command = rec.out.substr(start, rec.out.find('\n', start) - start);
  EXPECT_NE(command.find(" --per-node 4 "), std::string::npos) << command;
  exported = run(command);
  EXPECT_EQ(exported.exit_code, 0) << command << "\n" << exported.err;
  EXPECT_NE(exported.out.find("per_node: 4"), std::string::npos) << exported.out;
}

// --calibration reads the catalog alone: a plan's flags beside it are a usage error, not one of
// the two silently dropped (it used to print the plan and ignore --calibration).
TEST(PlanCli, TheCalibrationTakesNoPlanFlags) {
  for (const std::string& flag :
       {std::string("--model gpt-oss-20b"), std::string("--gpus 8"), std::string("--top 3")}) {
    CliRun r = run("plan --calibration " + flag);
    EXPECT_EQ(r.exit_code, 2) << flag << r.err;
    EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << flag;
  }
}

// A renamed copy of a recipe counts once in the calibration (4 recipes, not 5: the copy has no
// published rows), and the model planned (named in any case) keeps its own copy: plan names that
// model's recipe as its best measured.
TEST(PlanCli, APlannedCopyOfAModelSeesItsOwnRecipe) {
  fs::path root = testing::catalog_copy("plan_copy");
  fs::copy(root / "models" / "gpt-oss-20b", root / "models" / "gpt-oss-20b-copy");
  std::string models = read_all(root / "models.yaml");
  std::size_t start = models.find("  - name: gpt-oss-20b\n");
  std::size_t end = models.find("\n  - name: ", start + 1);
  ASSERT_NE(start, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  std::string entry = models.substr(start, end + 1 - start);
  entry = testing::replace_all(entry, "name: gpt-oss-20b\n", "name: gpt-oss-20b-copy\n");
  entry = testing::replace_all(entry, "slug: gpt-oss-20b\n", "slug: gpt-oss-20b-copy\n");
  std::ofstream(root / "models.yaml", std::ios::app) << entry;
  fs::create_directories(root / "recipes/gpt-oss-20b-copy/h200");
  std::string recipe = read_all(root / "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml");
  std::ofstream(root / "recipes/gpt-oss-20b-copy/h200/attune-tp1-pp2-ep4.yaml")
      << testing::replace_all(recipe, "\nmodel: gpt-oss-20b\n", "\nmodel: gpt-oss-20b-copy\n");

  const std::string where = " --gpu H200 --gpus 8 --top 1";
  CliRun copy = run("plan --model GPT-OSS-20B-COPY" + where, root.string());
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  EXPECT_NE(copy.out.find("calibrated on 4 measured layouts (4 catalog recipes"), std::string::npos)
      << copy.out;
  EXPECT_NE(copy.out.find("best measured for gpt-oss-20b-copy on H200"), std::string::npos)
      << copy.out;
  EXPECT_NE(copy.out.find("(recipes/gpt-oss-20b-copy/h200/attune-tp1-pp2-ep4.yaml)"),
            std::string::npos)
      << copy.out;
  CliRun original = run("plan --model gpt-oss-20b" + where, root.string());
  ASSERT_EQ(original.exit_code, 0) << original.err;
  EXPECT_NE(original.out.find("(recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml)"),
            std::string::npos)
      << original.out;
}

TEST(PlanCli, UnknownModelAndGpuExitOneEverywhere) {
  expect_same_refusal(run_both("--model no-such-model --gpu H200 --gpus 8 --layout TP1"),
                      "--model: no-such-model: not a catalog model and no such file");
  expect_same_refusal(run_both("--model gpt-oss-20b --gpu B999 --gpus 8 --layout TP1"),
                      "--gpu: B999: not in gpus.yaml (expected one of H100, H200, B200");
  expect_same_refusal({run("plan --model gpt-oss-20b --gpu B999 --gpus 8"),
                       run("recommend --model gpt-oss-20b --gpu B999 --gpus 8")},
                      "--gpu: B999: not in gpus.yaml");
}

TEST(PlanCli, ErrorsFollowFormatJson) {
  for (const std::string& command :
       {std::string("plan"), std::string("recommend"), std::string("export")}) {
    CliRun r = run(command + " --model gpt-oss-20b --gpu H200 --gpus 12 --format json" +
                   (command == "export" ? " --layout 'TP1 PP3 EP4'" + kExport : std::string()));
    EXPECT_EQ(r.exit_code, 1) << command << r.err;
    nlohmann::json problems = nlohmann::json::parse(r.err, nullptr);
    ASSERT_TRUE(problems.is_array()) << command << ": " << r.err;
    ASSERT_EQ(problems.size(), 1u) << command;
    EXPECT_EQ(problems[0]["field"], "--gpus");
    EXPECT_EQ(problems[0]["rule"], "arguments.whole_nodes");
    EXPECT_EQ(problems[0]["found"], "12");
  }
}

TEST(PlanCli, RootFromAnotherFolderReadsTheCatalogsRecipes) {
  std::string elsewhere = testing::fresh_dir("plan_cli_elsewhere." + std::to_string(::getpid()));
  CliRun r =
      run("--root '" + testing::source_dir() + "' plan --model gpt-oss-20b --gpu H200 --gpus 16",
          elsewhere);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("no such file"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("(4 catalog recipes, "), std::string::npos) << r.out;
  CliRun e =
      run("--root '" + testing::source_dir() +
              "' export --model gpt-oss-20b --gpu H200 --gpus 16 --layout 'TP1 PP2 EP8'" + kExport,
          elsewhere);
  EXPECT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml"),
            std::string::npos);  // its settings
}

TEST(PlanCli, PlanningWithoutTheCatalogsRecipesIsAnError) {
  fs::path root = fs::path(testing::fresh_dir("plan_cli_no_recipes." + std::to_string(::getpid())));
  fs::create_directories(root / "recipes");
  fs::path source = testing::source_dir();
  for (const char* file : {"models.yaml", "gpus.yaml", "authors.yaml", "site.yaml"}) {
    fs::copy_file(source / file, root / file);
  }
  for (const char* folder : {"schema", "patches", "templates", "models", "rules"}) {
    fs::copy(source / folder, root / folder, fs::copy_options::recursive);
  }
  for (const std::string& command :
       {std::string("plan --model gpt-oss-20b --gpu H200 --gpus 16"),
        std::string("recommend --model gpt-oss-20b --gpu H200 --gpus 16")}) {
    std::string elsewhere = testing::fresh_dir("plan_cli_elsewhere2." + std::to_string(::getpid()));
    CliRun r = run("--root '" + root.string() + "' " + command, elsewhere);
    EXPECT_EQ(r.exit_code, 1) << command << r.out;
    EXPECT_NE(r.err.find("no verified recipe of the catalog could be read"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace openrecipes
