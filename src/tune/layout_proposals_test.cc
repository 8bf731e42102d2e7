#include "tune/layout_proposals.h"

#include <gtest/gtest.h>

#include <fstream>

#include "layout/layout_text.h"
#include "test_support.h"

namespace openrecipes {
namespace {

// A ranked layout: `text` parsed as --layout reads it, with its prediction and memory.
LayoutPrediction ranked(const std::string& text, double tokens_per_s_per_gpu, double memory_gb) {
  Problems problems;
  LayoutPrediction prediction;
  prediction.layout = parse_layout_text(text, 8192, problems).value();
  prediction.layout.label = text;
  prediction.speed.tokens_per_s_per_gpu = tokens_per_s_per_gpu;
  prediction.memory.memory_bytes = memory_gb * 1e9;
  return prediction;
}

PredictionBand band(double relative_error, bool unlike = false) {
  PredictionBand b;
  b.relative_error = relative_error;
  b.rows = 5;
  b.unlike_measured = unlike;
  return b;
}

// Four ranked layouts, best predicted first, and a measured recipe at 9,000 tokens/s per GPU.
struct Fixture {
  MeasuredLayout recipe;
  LayoutPlan plan;
  Fixture() {
    recipe.name = "recipes/m/h200/x-tp1-pp2-ep4.yaml";
    recipe.tokens_per_s_per_gpu = 9000;
    plan.search.ranked = {ranked("TP1 PP1 EP8", 10000, 120), ranked("TP1 PP2 EP4", 9800, 80),
                          ranked("TP2 PP1 EP4", 9500, 100), ranked("TP1 PP4 EP2", 8000, 60)};
    plan.ranked_bands = {band(0.05), band(0.10), band(0.20, true), band(0.05)};
    plan.ranked_measured = {nullptr, nullptr, nullptr, nullptr};
    plan.best_measured = &recipe;
  }
};

TEST(ProposeLayouts, TheWidestOptimismFirstAndOnlyWhatCanBeatTheBestMeasured) {
  Fixture f;
  ProposalRound round = propose_layouts(f.plan, {}, 10);
  ASSERT_EQ(round.proposals.size(), 3u);
  // 9,500 unlike anything measured is explored at a band of at least 50%: 14,250.
  EXPECT_EQ(round.proposals[0].prediction.layout.label, "TP2 PP1 EP4");
  EXPECT_DOUBLE_EQ(round.proposals[0].optimistic_tokens_per_s_per_gpu, 9500 * (1 + kUnlikeBand));
  EXPECT_EQ(round.proposals[1].prediction.layout.label, "TP1 PP2 EP4");  // 9,800 +10%: 10,780
  EXPECT_EQ(round.proposals[2].prediction.layout.label, "TP1 PP1 EP8");  // 10,000 +5%: 10,500
  EXPECT_EQ(round.beaten, 1);  // 8,000 +5% cannot reach 9,000
  EXPECT_FALSE(round.stop);
  EXPECT_EQ(propose_layouts(f.plan, {}, 1).proposals.size(), 1u);
}

TEST(ProposeLayouts, TheSessionsRunsAreNotProposedAgainAndAnOomRulesOutBiggerLayouts) {
  Fixture f;
  f.plan.ranked_measured[1] = &f.recipe;  // the catalog measured TP1 PP2 EP4
  std::vector<SessionRun> session(2);
  session[0].layout = f.plan.search.ranked[2].layout;  // TP2 PP1 EP4 ran out of memory (100 GB)
  session[0].failure = "oom";
  session[1].layout = f.plan.search.ranked[3].layout;  // TP1 PP4 EP2 measured 9,900
  session[1].tokens_per_s_per_gpu = 9900;
  ProposalRound round = propose_layouts(f.plan, session, 10);
  EXPECT_EQ(round.skipped_measured, 2);
  EXPECT_EQ(round.skipped_failed, 1);
  EXPECT_EQ(round.skipped_memory, 1);  // TP1 PP1 EP8 needs 120 GB, more than the 100 that failed
  EXPECT_DOUBLE_EQ(round.best_measured_tokens_per_s_per_gpu, 9900);
  EXPECT_NE(round.best_measured.find("this session"), std::string::npos);
  EXPECT_TRUE(round.proposals.empty());
  EXPECT_TRUE(round.stop);
  EXPECT_NE(round.stop_reason.find("best measured, 9900 tokens/s per GPU"), std::string::npos)
      << round.stop_reason;
}

TEST(ProposeLayouts, AProposalsJsonReadsBackAsTheSameLayout) {
  Fixture f;
  f.plan.search.ranked[0].layout.layer_split = LayerSplit{3, 2};
  f.plan.search.ranked[0].layout.recompute = Recompute{"full", "uniform", 1};
  f.plan.search.ranked[0].layout.account_for_loss_in_pipeline_split = true;
  f.plan.cluster.gpu.type = "H200";
  f.plan.cluster.gpus = 8;
  ProposalRound round = propose_layouts(f.plan, {}, 10);
  nlohmann::ordered_json json = proposal_round_to_json(round, f.plan, "gpt-oss-20b");
  ASSERT_EQ(json["proposals"].size(), round.proposals.size());
  for (std::size_t i = 0; i < round.proposals.size(); ++i) {
    nlohmann::json line = nlohmann::json::parse(json["proposals"][i].dump());
    line["tokens_per_s_per_gpu"] = 9100.5;
    Problems problems;
    std::optional<SessionRun> run = session_run_from_json(line, 8192, "tune.jsonl", 1, problems);
    ASSERT_TRUE(run) << testing::describe(problems);
    EXPECT_TRUE(same_layout(run->layout, round.proposals[i].prediction.layout)) << line.dump();
  }
}

TEST(ReadSessionRuns, EachBadLineIsAProblemAtItsLine) {
  std::string path = testing::fresh_dir("session_runs") + "/tune.jsonl";
  std::ofstream(path)
      << "{\"layout\": \"TP1 PP2 EP4\", \"tokens_per_s_per_gpu\": 9000}\n"
         "\n"
         "not json\n"
         "{\"tokens_per_s_per_gpu\": 1}\n"
         "{\"layout\": \"TP1\", \"tokens_per_s_per_gpu\": 1, \"failure\": \"oom\"}\n"
         "{\"layout\": \"TP1\", \"failure\": \"melted\"}\n"
         "{\"layout\": \"TP1\", \"tokens_per_s_per_gpu\": -3}\n"
         "{\"layout\": \"TQ1\", \"failure\": \"oom\"}\n"
         "{\"layout\": \"TP1\", \"failure\": \"crash\", \"placement\": "
         "{\"account_for_loss\": 1}}\n"
         "[1, 2]\n";
  Problems problems;
  EXPECT_FALSE(read_session_runs(path, 8192, problems));
  std::vector<int> lines;
  for (const Problem& problem : problems) {
    EXPECT_EQ(problem.file, path);
    EXPECT_EQ(problem.rule, "tune.session") << problem.message;
    lines.push_back(problem.position.line);
  }
  EXPECT_EQ(lines, (std::vector<int>{3, 4, 5, 6, 7, 8, 9, 10})) << testing::describe(problems);

  std::ofstream(path) << "{\"layout\": \"TP1 PP2 EP4\", \"recompute\": \"selective\", "
                         "\"tokens_per_s_per_gpu\": 9000}\n"
                         "{\"layout\": \"TP2 PP1 EP4\", \"failure\": \"oom\"}\n";
  problems.clear();
  std::optional<std::vector<SessionRun>> runs = read_session_runs(path, 8192, problems);
  ASSERT_TRUE(runs) << testing::describe(problems);
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].layout.pp, 2);
  EXPECT_EQ(recompute_text((*runs)[0].layout.recompute), "selective");
  EXPECT_EQ((*runs)[1].failure, "oom");
}

}  // namespace
}  // namespace openrecipes
