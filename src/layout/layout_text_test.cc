// The --layout, --recompute and --layer-split forms.
#include "layout/layout_text.h"

#include <gtest/gtest.h>

namespace openrecipes {
namespace {

TEST(LayoutText, ReadsTheIssuesExampleWithOmittedSizesOne) {
  std::string error;
  std::optional<Layout> l = parse_layout_text("TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1", 8192, error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->tp, 2);
  EXPECT_EQ(l->pp, 8);
  EXPECT_EQ(l->vpp, 4);
  EXPECT_EQ(l->ep, 32);
  EXPECT_EQ(l->etp, 1);
  EXPECT_EQ(l->cp, 1);
  EXPECT_EQ(l->rows_per_microbatch, 1);
  EXPECT_TRUE(l->sequence_parallel);  // TP > 1
  EXPECT_EQ(l->max_tokens_per_gpu, 8192);
  EXPECT_EQ(l->dispatcher, "alltoall");

  l = parse_layout_text("pp4 cp2 mbs2", 8192, error);
  ASSERT_TRUE(l) << error;
  EXPECT_EQ(l->tp, 1);
  EXPECT_FALSE(l->sequence_parallel);
  EXPECT_EQ(l->ep, 1);
  EXPECT_EQ(l->max_tokens_per_gpu, 8192);  // 2 rows x 8192 / CP 2
  EXPECT_EQ(l->dispatcher, "");
  EXPECT_EQ(layout_text(*l), "TP1 PP4 VPP1 CP2 EP1 ETP1 MBS2");
}

TEST(LayoutText, RefusesWhatIsNotALayout) {
  std::string error;
  EXPECT_FALSE(parse_layout_text("TP2 XP4", 8192, error));
  EXPECT_NE(error.find("unknown layout word 'XP4'"), std::string::npos) << error;
  EXPECT_FALSE(parse_layout_text("TP0", 8192, error));
  EXPECT_NE(error.find("positive integer"), std::string::npos) << error;
  EXPECT_FALSE(parse_layout_text("TP-1", 8192, error));
  EXPECT_FALSE(parse_layout_text("TP2 TP4", 8192, error));
  EXPECT_NE(error.find("twice"), std::string::npos) << error;
  EXPECT_FALSE(parse_layout_text("TP99999999999", 8192, error));
  EXPECT_FALSE(parse_layout_text("   ", 8192, error));
  EXPECT_FALSE(parse_layout_text("TP", 8192, error));
}

TEST(LayoutText, ReadsRecomputeSettings) {
  std::string error;
  auto none = parse_recompute_text("none", error);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto full = parse_recompute_text("full:block:3", error);
  ASSERT_TRUE(full && *full);
  EXPECT_EQ((*full)->granularity, "full");
  EXPECT_EQ((*full)->method, "block");
  EXPECT_EQ((*full)->num_layers, 3);
  EXPECT_EQ(recompute_text(*full), "full:block:3");
  EXPECT_EQ(recompute_text(*parse_recompute_text("full", error)), "full:uniform:1");
  EXPECT_EQ(recompute_text(*parse_recompute_text("selective", error)), "selective");
  EXPECT_FALSE(parse_recompute_text("full:sideways:1", error));
  EXPECT_FALSE(parse_recompute_text("full:uniform:0", error));
  EXPECT_FALSE(parse_recompute_text("partial", error));
  EXPECT_FALSE(parse_recompute_text("", error));
}

TEST(LayoutText, ReadsLayerSplits) {
  std::string error;
  std::optional<LayerSplit> split = parse_layer_split_text("11,10", error);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->first, 11);
  EXPECT_EQ(split->last, 10);
  EXPECT_FALSE(parse_layer_split_text("11", error));
  EXPECT_FALSE(parse_layer_split_text("11,", error));
  EXPECT_FALSE(parse_layer_split_text("0,3", error));
  EXPECT_FALSE(parse_layer_split_text("1,2,3", error));
}

}  // namespace
}  // namespace openrecipes
