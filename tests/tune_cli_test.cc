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
