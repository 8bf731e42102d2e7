// `openrecipes tune propose` as a tuner calls it: proposals as JSON, written back as the session's
// runs, never proposed again; bad session lines named by file and line.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace openrecipes {
namespace {

const char* kPropose = "tune propose --model gpt-oss-20b --gpu H200 --gpus 8 --format json";

nlohmann::json proposals(const std::string& extra) {
  testing::ShellRun run =
      testing::run_binary(std::string(kPropose) + extra, testing::source_dir(), "2>&1");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  return nlohmann::json::parse(run.output, nullptr, false);
}

TEST(TuneCli, ProposalsWrittenBackAsRunsAreNotProposedAgain) {
  nlohmann::json first = proposals(" --count 2");
  ASSERT_TRUE(first.is_object());
  ASSERT_EQ(first["proposals"].size(), 2u) << first.dump();
  EXPECT_EQ(first["stop"], false);
  // The first ran out of memory, the second measured just below its prediction.
  std::string session = testing::fresh_dir("tune_cli") + "/tune.jsonl";
  {
    std::ofstream out(session);
    nlohmann::json oom = first["proposals"][0];
    oom["failure"] = "oom";
    nlohmann::json measured = first["proposals"][1];
    measured["tokens_per_s_per_gpu"] = 10000.0;
    out << oom.dump() << "\n" << measured.dump() << "\n";
  }
  nlohmann::json next = proposals(" --count 5 --session " + session);
  EXPECT_EQ(next["skipped"]["failed"], 1);
  EXPECT_EQ(next["skipped"]["measured"], 1);
  EXPECT_EQ(next["best_measured"]["tokens_per_s_per_gpu"], 10000.0);
  for (const nlohmann::json& proposal : next["proposals"]) {
    for (const nlohmann::json& done : first["proposals"]) {
      EXPECT_FALSE(proposal["layout"] == done["layout"] &&
                   proposal["recompute"] == done["recompute"])
          << proposal.dump();
    }
    // Nothing predicted to need the memory of the layout that ran out.
    EXPECT_LT(proposal["memory_gb"].get<double>(),
              first["proposals"][0]["memory_gb"].get<double>());
  }
}

// The run settings plan takes change the proposals as they change plan's ranking, and each
// proposal's flags carry them, so that export writes the run that was predicted; every
// proposal names its dispatcher (EP 1 included), as its flags do.
TEST(TuneCli, RunSettingsReachThePredictionsAndTheFlags) {
  nlohmann::json plain = proposals(" --count 3");
  nlohmann::json bf16 = proposals(" --count 3 --grad-reduce-in-bf16 --tp-comm-overlap");
  ASSERT_TRUE(plain.is_object() && bf16.is_object());
  ASSERT_EQ(bf16["proposals"].size(), 3u) << bf16.dump();
  for (const nlohmann::json& p : bf16["proposals"]) {
    const std::string flags = p["flags"].get<std::string>();
    EXPECT_NE(flags.find(" --grad-reduce-in-bf16"), std::string::npos) << flags;
    EXPECT_NE(flags.find(" --tp-comm-overlap"), std::string::npos) << flags;
    EXPECT_EQ(p["layout"].get<std::string>().rfind("TP1 ", 0), std::string::npos)  // TP > 1
        << p.dump();
    EXPECT_TRUE(p["dispatcher"].is_string()) << p.dump();
    EXPECT_NE(flags.find(" --dispatcher " + p["dispatcher"].get<std::string>()), std::string::npos)
        << flags;
    testing::ShellRun draft =
        testing::run_binary("export --to megatron-lm " + flags, testing::source_dir(), "2>&1");
    EXPECT_EQ(draft.exit_code, 0) << flags << "\n" << draft.output;
    EXPECT_NE(draft.output.find("--tp-comm-overlap"), std::string::npos);
  }
  for (const nlohmann::json& p : plain["proposals"]) {
    EXPECT_EQ(p["flags"].get<std::string>().find("--tp-comm-overlap"), std::string::npos);
  }
  testing::ShellRun bad = testing::run_binary(
      std::string(kPropose) + " --moe-flex-dispatcher-backend nccl", testing::source_dir(), "2>&1");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("deepep or hybridep"), std::string::npos) << bad.output;
  // On one GPU, TP communication overlap leaves no legal layout: the stop says so, not "no fit".
  testing::ShellRun none = testing::run_binary(
      "tune propose --model gpt-oss-20b --gpu H200 --gpus 1 --tp-comm-overlap --format json",
      testing::source_dir(), "2>&1");
  ASSERT_EQ(none.exit_code, 0) << none.output;
  nlohmann::json stop = nlohmann::json::parse(none.output, nullptr, false);
  EXPECT_EQ(stop["stop"], true) << none.output;
  EXPECT_NE(stop["stop_reason"].get<std::string>().find("no layout is legal"), std::string::npos)
      << none.output;
}

TEST(TuneCli, ABadSessionLineIsNamedAndNothingIsProposed) {
  std::string session = testing::fresh_dir("tune_cli_bad") + "/tune.jsonl";
  std::ofstream(session) << "{\"layout\": \"TP1 PP2 EP4\", \"failure\": \"melted\"}\n";
  testing::ShellRun run = testing::run_binary(std::string(kPropose) + " --session " + session,
                                              testing::source_dir(), "2>&1 >/dev/null");
  EXPECT_EQ(run.exit_code, 1);
  nlohmann::json problems = nlohmann::json::parse(run.output, nullptr, false);
  ASSERT_TRUE(problems.is_array()) << run.output;
  EXPECT_EQ(problems[0]["file"], session);
  EXPECT_EQ(problems[0]["line"], 1);
  EXPECT_EQ(problems[0]["field"], "failure");
  EXPECT_EQ(problems[0]["rule"], "tune.session");
}

}  // namespace
}  // namespace openrecipes
