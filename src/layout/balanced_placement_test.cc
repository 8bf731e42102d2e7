// The most balanced placement for PP x VPP, on the published layouts the issue names and their
// hand-counted placements.
#include <gtest/gtest.h>

#include "layout/pipeline_layout.h"
#include "test_support.h"

namespace openrecipes {
namespace {

ModelShape model(int layers, int mtp = 0) { return testing::model_with_layers(layers, mtp); }

PlacementChoice balanced(int layers, int pp, int vpp, int mtp = 0) {
  std::optional<PlacementChoice> choice = balanced_placement(model(layers, mtp), pp, vpp);
  EXPECT_TRUE(choice) << layers << " layers PP" << pp << " VPP" << vpp;
  return choice.value_or(PlacementChoice{});
}

bool only_flags(const PlacementChoice& c, bool embedding, bool loss) {
  return !c.layer_split && c.pipeline_layout.empty() &&
         c.account_for_embedding_in_pipeline_split == embedding &&
         c.account_for_loss_in_pipeline_split == loss;
}

TEST(BalancedPlacement, EvenWhenTheLayersDivide) {
  PlacementChoice c = balanced(48, 4, 2);  // Qwen3.5-122B-A10B: 6 layers a chunk
  EXPECT_TRUE(only_flags(c, false, false));
  EXPECT_EQ(c.largest_chunk_layers, 7);  // 6 and the embedding (or the loss)
}

TEST(BalancedPlacement, Qwen3_235BOnPp8Vpp4CountsTheEmbeddingAndTheLoss) {
  PlacementChoice c = balanced(94, 8, 4);  // 96 counted layers, 3 a chunk
  EXPECT_TRUE(only_flags(c, true, true));
  EXPECT_EQ(c.largest_chunk_layers, 3);
  c = balanced(94, 4, 12);  // 96 / 48 = 2 a chunk
  EXPECT_TRUE(only_flags(c, true, true));
  EXPECT_EQ(c.largest_chunk_layers, 2);
}

TEST(BalancedPlacement, Llama31_405BCountsTheEmbeddingAndTheLoss) {
  PlacementChoice c = balanced(126, 8, 8);  // 128 counted layers, 2 a chunk
  EXPECT_TRUE(only_flags(c, true, true));
  EXPECT_EQ(c.largest_chunk_layers, 2);
  c = balanced(126, 16, 8);  // 1 a chunk: the first holds only the embedding
  EXPECT_TRUE(only_flags(c, true, true));
  EXPECT_EQ(c.largest_chunk_layers, 1);
}

TEST(BalancedPlacement, OneFlagWhenOneIsEnough) {
  PlacementChoice c = balanced(47, 4, 1);  // 48 counted with the embedding: 12, 12, 12, 11 + L
  EXPECT_TRUE(only_flags(c, true, false));
  EXPECT_EQ(c.largest_chunk_layers, 13);
}

TEST(BalancedPlacement, DeepSeekV3OnPp4SplitsFirstAndLast) {
  // 61 layers: nothing even divides; 15 + 16 + 16 + 14 puts 16 counted layers on the first stage
  // (with the embedding), each middle one and 15 on the last (with the loss).
  PlacementChoice c = balanced(61, 4, 1, 1);
  ASSERT_TRUE(c.layer_split);
  EXPECT_EQ(c.layer_split->first, 15);
  EXPECT_EQ(c.layer_split->last, 14);
  EXPECT_EQ(c.largest_chunk_layers, 16);
}

TEST(BalancedPlacement, DeepSeekV3OnPp8Vpp2NeedsAString) {
  // 61 + E + L = 63 over 16 chunks: 4 each but one. The first/last split cannot: first, last
  // and the middle stages' layers must all be even, and 61 is odd.
  PlacementChoice c = balanced(61, 8, 2, 1);
  EXPECT_EQ(c.pipeline_layout, "Et*3|(t*4|)*14,ttL");
  EXPECT_FALSE(c.layer_split);
  EXPECT_EQ(c.largest_chunk_layers, 4);
  Layout l;
  l.pp = 8;
  l.vpp = 2;
  c.apply_to(l);
  std::optional<PipelinePlacement> p = place_layers(model(61, 1), l);  // legal, without MTP
  ASSERT_TRUE(p);
  EXPECT_EQ(p->largest_stage_counted_layers(), 8);
}

TEST(BalancedPlacement, DeepSeekV3OnPp8Vpp4) {
  PlacementChoice c = balanced(61, 8, 4, 1);  // 63 over 32 chunks: 2 each, the loss alone
  EXPECT_EQ(c.pipeline_layout, "Et|(tt|)*30,L");
  EXPECT_EQ(c.largest_chunk_layers, 2);
}

TEST(BalancedPlacement, AlwaysLegalAndAsBalancedAsTheBound) {
  for (int layers = 1; layers <= 130; ++layers) {
    for (int pp : {1, 2, 3, 4, 8, 16}) {
      for (int vpp = 1; vpp <= (pp > 1 ? 8 : 1); ++vpp) {
        PlacementChoice c = balanced(layers, pp, vpp);
        Layout l;
        l.pp = pp;
        l.vpp = vpp;
        c.apply_to(l);
        std::optional<PipelinePlacement> p = place_layers(model(layers), l);
        ASSERT_TRUE(p) << layers << " PP" << pp << " VPP" << vpp << " " << c.pipeline_layout;
        const int chunks = pp * vpp;
        EXPECT_EQ(c.largest_chunk_layers, (layers + 2 + chunks - 1) / chunks)
            << layers << " PP" << pp << " VPP" << vpp;
        EXPECT_EQ(p->largest_chunk_counted_layers(), c.largest_chunk_layers);
      }
    }
  }
}

TEST(BalancedPlacement, NoneForWhatCannotBeAPipeline) {
  EXPECT_FALSE(balanced_placement(model(48), 1, 2));
  EXPECT_FALSE(balanced_placement(model(48), 0, 1));
  EXPECT_FALSE(balanced_placement(model(0), 4, 1));
}

}  // namespace
}  // namespace openrecipes
