// Pipeline stages and virtual chunks of each placement form, as the memory and speed models read
// them.
#include "layout/pipeline_stages.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

ModelShape stages_model(int layers, int mtp = 0) { return testing::model_with_layers(layers, mtp); }

Layout stages_pipeline(int pp, int vpp) { return testing::pipeline_layout_of(pp, vpp); }

TEST(PipelineStages, EvenSplitKeepsItsChunks) {
  std::vector<PipelineStage> stages = pipeline_stages(stages_model(48), stages_pipeline(4, 2), 64);
  ASSERT_EQ(stages.size(), 4u);
  EXPECT_EQ(stages[0].layers, 12);
  EXPECT_EQ(stages[0].chunks, 2);
  EXPECT_EQ(stages[0].largest_chunk_layers, 6);
  EXPECT_EQ(stages[0].largest_chunk_counted_layers, 7);  // with the embedding
  EXPECT_TRUE(stages[0].has_embedding);
  EXPECT_TRUE(stages[3].has_output);
  EXPECT_DOUBLE_EQ(stages[0].in_flight_microbatches, 4 + 3.0 / 2);
  EXPECT_EQ(smallest_chunk_layers(stages_model(48), stages_pipeline(4, 2)), 6);
  EXPECT_EQ(largest_chunk_layers(stages_model(48), stages_pipeline(4, 2)), 6);
}

TEST(PipelineStages, AccountForFlagsLightenTheEnds) {
  Layout l = stages_pipeline(8, 4);
  l.account_for_embedding_in_pipeline_split = true;
  l.account_for_loss_in_pipeline_split = true;
  std::vector<PipelineStage> stages = pipeline_stages(stages_model(94), l, 64);
  EXPECT_EQ(stages[0].layers, 11);
  EXPECT_EQ(stages[0].largest_chunk_layers, 3);
  EXPECT_EQ(stages[0].largest_chunk_counted_layers, 3);  // 2 layers and the embedding, or 3
  EXPECT_EQ(stages[1].layers, 12);
  EXPECT_EQ(stages[7].layers, 11);
  PipelinePlacement p = pipeline_placement(stages_model(94), l);
  EXPECT_EQ(p.at(0, 0).decoder_layers, 2);
  EXPECT_TRUE(p.at(0, 0).has_embedding);
  EXPECT_TRUE(p.at(7, 3).has_loss);
  EXPECT_EQ(smallest_chunk_layers(stages_model(94), l), 2);
  EXPECT_EQ(largest_chunk_layers(stages_model(94), l), 3);
}

TEST(PipelineStages, LayerSplitAndMtp) {
  Layout l = stages_pipeline(4, 1);
  l.layer_split = LayerSplit{15, 14};
  std::vector<PipelineStage> stages = pipeline_stages(stages_model(61, 1), l, 64);
  EXPECT_EQ(stages[0].layers, 15);
  EXPECT_EQ(stages[2].layers, 16);
  EXPECT_EQ(stages[3].layers, 14);
  EXPECT_EQ(stages[3].mtp_layers, 1);
  EXPECT_EQ(smallest_chunk_layers(stages_model(61, 1), l), 14);
}

TEST(PipelineStages, ExplicitStringPlacesEveryChunk) {
  Layout l = stages_pipeline(16, 2);
  l.pipeline_layout = "Et*3|(tt|)*29,m|L";
  std::vector<PipelineStage> stages = pipeline_stages(stages_model(61, 1), l, 64);
  EXPECT_EQ(stages[0].layers, 5);
  EXPECT_EQ(stages[14].layers, 2);
  EXPECT_EQ(stages[14].mtp_layers, 1);  // a standalone MTP chunk
  EXPECT_EQ(stages[15].layers, 2);
  EXPECT_EQ(stages[15].mtp_layers, 0);
  EXPECT_EQ(stages[0].largest_chunk_counted_layers, 4);  // E and 3 layers
  EXPECT_TRUE(pipeline_placement(stages_model(61, 1), l).at(15, 1).has_loss);
  EXPECT_EQ(smallest_chunk_layers(stages_model(61, 1), l), 2);  // empty chunks do not count
  EXPECT_EQ(largest_chunk_layers(stages_model(61, 1), l), 3);
}

TEST(PipelineStages, AnIllegalPlacementStillGivesEveryStage) {
  std::vector<PipelineStage> stages = pipeline_stages(stages_model(94), stages_pipeline(8, 1), 64);
  ASSERT_EQ(stages.size(), 8u);
  EXPECT_EQ(stages[3].layers, 11);  // 94 / 8 rounded down
  // Alternating placements reach the cache in turn: each answer is its own.
  Layout split = stages_pipeline(4, 1);
  split.layer_split = LayerSplit{15, 14};
  EXPECT_EQ(pipeline_stages(stages_model(61), split, 64)[0].layers, 15);
  EXPECT_EQ(pipeline_stages(stages_model(61), stages_pipeline(61, 1), 64)[0].layers, 1);
  EXPECT_EQ(pipeline_stages(stages_model(61), split, 64)[3].layers, 14);
}

}  // namespace
}  // namespace openrecipes
