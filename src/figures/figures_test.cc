// The figures against the bundled recipes' own stated figures (recipes/).
#include "figures/figures.h"

#include <gtest/gtest.h>

#include "figures/layout_label.h"

namespace openrecipes {
namespace {

TEST(DataParallelSize, DividesGpusByModelParallelProduct) {
  EXPECT_EQ(data_parallel_size(32, 1, 4, 1), 8);  // the Qwen3.5 recipes: TP1 PP4 on 32 GPUs
  EXPECT_EQ(data_parallel_size(8, 1, 2, 1), 4);   // the gpt-oss recipe: TP1 PP2 on 8 GPUs
  EXPECT_EQ(data_parallel_size(64, 2, 2, 2), 8);
  EXPECT_FALSE(data_parallel_size(8, 3, 1, 1).has_value());
  EXPECT_FALSE(data_parallel_size(8, 0, 1, 1).has_value());
}

TEST(UsdPerMillionTokens, ReproducesSeedCosts) {
  const double h200 = 7.912, h100 = 6.88, b200 = 113.93 / 8;
  EXPECT_DOUBLE_EQ(round_to(usd_per_million_tokens(h200, 9448.16), 2), 0.23);
  EXPECT_DOUBLE_EQ(round_to(usd_per_million_tokens(h200, 2451.44), 2), 0.90);
  EXPECT_DOUBLE_EQ(round_to(usd_per_million_tokens(h200, 2366.73), 2), 0.93);
  EXPECT_DOUBLE_EQ(round_to(usd_per_million_tokens(h200, 2289.65), 2), 0.96);
  EXPECT_DOUBLE_EQ(round_to(usd_per_million_tokens(h100, 999.7), 2), 1.91);
  EXPECT_DOUBLE_EQ(round_to(usd_per_million_tokens(b200, 2475.8), 2), 1.60);
  EXPECT_NEAR(usd_per_million_tokens(3.6, 1000.0), 1.0, 1e-12);  // 3.6 USD/h at 1,000 tok/s
}

TEST(ModelFlopsUtilization, ReproducesSeedMfu) {
  EXPECT_DOUBLE_EQ(round_to(model_flops_utilization(3607142400, 9448.16, 989e12), 4), 0.2068);
  EXPECT_DOUBLE_EQ(round_to(model_flops_utilization(9008136192, 2451.44, 989e12), 4), 0.1340);
  EXPECT_DOUBLE_EQ(round_to(model_flops_utilization(9008136192, 2366.73, 989e12), 4), 0.1293);
  EXPECT_DOUBLE_EQ(round_to(model_flops_utilization(9008136192, 2289.65, 989e12), 4), 0.1251);
  // Another peak changes the answer: the recipes' stated values hold only at 989e12.
  EXPECT_NE(round_to(model_flops_utilization(3607142400, 9448.16, 1979e12), 4), 0.2068);
}

TEST(WindowTokens, CountsInclusiveSteps) {
  EXPECT_EQ(window_tokens(5, 19, 128, 8192), 15728640);  // the protocol: steps 5-19
  EXPECT_EQ(window_tokens(4, 13, 128, 8192), 10485760);  // a 14-step run scored over steps 4-13
  EXPECT_EQ(window_tokens(0, 0, 1, 1), 1);
}

TEST(WindowGpuHours, IsWindowTokensOverScore) {
  EXPECT_NEAR(window_gpu_hours(15728640, 9448.16), 0.46242, 1e-5);
  EXPECT_NEAR(window_gpu_hours(3600, 1.0), 1.0, 1e-12);
}

TEST(EqualsRounded, ComparesAtTheStatedPrecision) {
  EXPECT_TRUE(equals_rounded(0.9, 0.8965, 2));
  EXPECT_FALSE(equals_rounded(0.89, 0.8965, 2));
  EXPECT_TRUE(equals_rounded(0.134, 0.13397, 4));
  EXPECT_FALSE(equals_rounded(0.1339, 0.13397, 4));
  EXPECT_DOUBLE_EQ(round_to(0.125, 2), 0.13);  // half away from zero
}

Layout make_layout(int tp, int pp, int vpp, int cp, int ep, int etp, int dp) {
  Layout l;
  l.tp = tp, l.pp = pp, l.vpp = vpp, l.cp = cp, l.ep = ep, l.etp = etp, l.dp = dp;
  return l;
}

TEST(LayoutLabel, MatchesSeedLabelsAndShowsSizesAboveOne) {
  EXPECT_EQ(layout_label(make_layout(1, 4, 1, 1, 8, 1, 8)), "TP1 PP4 EP8 DP8");
  EXPECT_EQ(layout_label(make_layout(1, 2, 1, 1, 4, 1, 4)), "TP1 PP2 EP4 DP4");
  EXPECT_EQ(layout_label(make_layout(2, 4, 2, 2, 8, 2, 2)), "TP2 PP4 VPP2 CP2 EP8 ETP2 DP2");
  EXPECT_EQ(layout_label(make_layout(8, 1, 1, 1, 1, 1, 1)), "TP8 PP1 DP1");
}

TEST(LayoutSlug, DropsDpAndLowercases) {
  EXPECT_EQ(layout_slug(make_layout(1, 4, 1, 1, 8, 1, 8)), "tp1-pp4-ep8");
  EXPECT_EQ(layout_slug(make_layout(2, 4, 2, 2, 8, 2, 2)), "tp2-pp4-vpp2-cp2-ep8-etp2");
}

TEST(NodeCount, WholeNodesOrOnePartNode) {
  EXPECT_EQ(node_count(16, 8), 2);
  EXPECT_EQ(node_count(8, 8), 1);
  EXPECT_EQ(node_count(4, 8), 1);   // part of one node
  EXPECT_EQ(node_count(12, 0), 1);  // GPUs per node unknown
}

TEST(GpuHours, GpusTimesWallSecondsOverAnHour) {
  EXPECT_DOUBLE_EQ(gpu_hours(8, 3600.0), 8.0);
  EXPECT_DOUBLE_EQ(gpu_hours(32, 450.0), 4.0);
  EXPECT_DOUBLE_EQ(gpu_hours(8, 0.0), 0.0);
}

}  // namespace
}  // namespace openrecipes
