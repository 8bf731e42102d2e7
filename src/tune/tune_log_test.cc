#include "tune/tune_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

TEST(TuneLog, EventsAreAppendedAndReplayedIntoRunsAndJobsInFlight) {
  std::string dir = testing::fresh_dir("tune_log_replay") + "/state";
  Problems problems;
  {
    std::optional<TuneLog> log = TuneLog::open(dir, problems);
    ASSERT_TRUE(log) << testing::describe(problems);
    EXPECT_TRUE(log->empty());
    log->append({{"event", "start"},
                 {"model", "gpt-oss-20b"},
                 {"gpu", "H200"},
                 {"gpus", 8},
                 {"reference", "r.yaml"}});
    auto proposal = [](int run, const char* layout) {
      return nlohmann::ordered_json{{"event", "proposal"}, {"run", run},
                                    {"layout", layout},    {"recompute", "none"},
                                    {"label", layout},     {"predicted_tokens_per_s_per_gpu", 1e4},
                                    {"band_used", 0.5}};
    };
    log->append(proposal(1, "TP1 PP1 VPP1 CP1 EP8 ETP1 MBS1"));
    log->append({{"event", "submitted"}, {"run", 1}, {"job", 41}, {"dir", dir + "/runs/001"}});
    log->append(proposal(2, "TP1 PP2 VPP1 CP1 EP4 ETP1 MBS1"));
    log->append({{"event", "submitted"}, {"run", 2}, {"job", 42}, {"dir", dir + "/runs/002"}});
    log->append({{"event", "failed"},
                 {"run", 1},
                 {"job", 41},
                 {"layout", "TP1 PP1 VPP1 CP1 EP8 ETP1 MBS1"},
                 {"failure", "oom"},
                 {"detail", "CUDA out of memory"},
                 {"gpu_hours", 0.2}});
  }
  std::optional<TuneLog> again = TuneLog::open(dir, problems);
  ASSERT_TRUE(again) << testing::describe(problems);
  const TuneLogState& state = again->state();
  ASSERT_TRUE(state.start);
  EXPECT_EQ((*state.start)["model"], "gpt-oss-20b");
  ASSERT_EQ(state.runs.size(), 2u);
  EXPECT_EQ(state.runs[0].outcome, "failed");
  EXPECT_EQ(state.runs[0].result["failure"], "oom");
  ASSERT_EQ(state.in_flight().size(), 1u);
  EXPECT_EQ(state.in_flight()[0]->job, 42);
  EXPECT_EQ(state.in_flight()[0]->proposal["layout"], "TP1 PP2 VPP1 CP1 EP4 ETP1 MBS1");
  // Each line carries the time it was written.
  std::ifstream in(again->path());
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find("\"time\":\""), std::string::npos) << first;
}

TEST(TuneLog, ATornLastLineIsDroppedAndABrokenLineIsAProblemWithItsLine) {
  std::string dir = testing::fresh_dir("tune_log_broken");
  const std::string start =
      R"({"event":"start","model":"m","gpu":"H200","gpus":8,"reference":"r.yaml"})";
  std::ofstream(dir + "/tune.jsonl") << start << "\n{\"event\":\"submitted\",\"run\":1,\"jo";
  Problems problems;
  std::optional<TuneLog> torn = TuneLog::open(dir, problems);
  ASSERT_TRUE(torn) << testing::describe(problems);
  EXPECT_TRUE(torn->state().runs.empty());
  // The half line is cut off, so the next event starts a line of its own.
  torn->append({{"event", "resume"}, {"in_flight", nlohmann::ordered_json::array()}});
  torn.reset();  // its lock with it
  std::optional<TuneLog> again = TuneLog::open(dir, problems);
  ASSERT_TRUE(again) << testing::describe(problems);
  again.reset();

  std::ofstream(dir + "/tune.jsonl") << start << "\n{\"event\":\"launched\"}\n";
  EXPECT_FALSE(TuneLog::open(dir, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].position.line, 2);
  EXPECT_EQ(problems[0].rule, "tune.state");
  EXPECT_EQ(problems[0].found, "{\"event\":\"launched\"}");

  // Events missing a field, of the wrong type, or naming an absurd run are refused at their line.
  for (const char* bad : {R"({"event":"recipe"})", R"({"event":"stop","reason":5,"detail":""})",
                          R"({"event":"submitted","run":1,"job":"abc","dir":"d"})",
                          R"({"event":"note","run":2000000000})", R"({"event":"start"})"}) {
    problems.clear();
    std::ofstream(dir + "/tune.jsonl") << start << "\n" << bad << "\n";
    EXPECT_FALSE(TuneLog::open(dir, problems)) << bad;
    ASSERT_EQ(problems.size(), 1u) << bad;
    EXPECT_EQ(problems[0].position.line, 2) << bad;
  }
}

TEST(TuneLog, AStateFolderThatIsAFileIsAProblem) {
  std::string dir = testing::fresh_dir("tune_log_file");
  std::ofstream(dir + "/not-a-folder") << "x";
  Problems problems;
  EXPECT_FALSE(TuneLog::open(dir + "/not-a-folder", problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "--state");
}

TEST(TuneLog, TwoSessionsNeverOpenOneStateFolder) {
  std::string dir = testing::fresh_dir("tune_log_lock");
  Problems problems;
  std::optional<TuneLog> first = TuneLog::open(dir, problems);
  ASSERT_TRUE(first) << testing::describe(problems);
  EXPECT_FALSE(TuneLog::open(dir, problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rule, "tune.state");
  EXPECT_EQ(problems[0].found, "another openrecipes tune holds its lock");
  first.reset();  // the lock goes with the log
  problems.clear();
  EXPECT_TRUE(TuneLog::open(dir, problems)) << testing::describe(problems);
}

}  // namespace
}  // namespace openrecipes
