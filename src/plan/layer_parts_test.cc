// How layer kinds combine into one decoder layer's parts, on hand-built shapes and the catalog.
#include "plan/layer_parts.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

// Hand-built (not a real model): 6 layers, 2 Mamba-2, 1 attention, 3 MLP-only, as Nemotron-H
// arranges its layers (each layer one mixer or one MLP).
ModelShape sequential_hybrid() {
  ModelShape m;
  m.layers = 6;
  m.hidden_size = 1024;
  m.attention_layers = 1;
  m.mamba_layers = 2;
  m.mamba_heads = 32;
  m.mamba_head_dim = 64;
  m.mamba_groups = 8;
  m.mamba_state_size = 128;
  m.dense_mlp_layers = 3;
  return m;
}

// Hand-built: 4 layers, each attention and Mamba-2 side by side plus an MLP (as Falcon-H1).
ModelShape parallel_hybrid() {
  ModelShape m = sequential_hybrid();
  m.layers = 4;
  m.attention_layers = 4;
  m.mamba_layers = 4;
  m.dense_mlp_layers = 4;
  return m;
}

TEST(LayerParts, EveryCatalogTransformerHasTwoBlocksPerLayer) {
  // The catalog's transformers hold a mixer and an MLP in every layer: 2 blocks, so the TP
  // collectives (2 per block and pass) are the 4 per layer the speed model had before. Nemotron-H
  // (Nemotron 3 Nano) layers hold one block each: a Mamba-2 mixer, attention or an MLP.
  int hybrids = 0;
  for (const Model& model : testing::bundled_catalog().catalog.models) {
    bool one_block_layers = model.shape.mamba_layers > 0;
    hybrids += one_block_layers;
    EXPECT_DOUBLE_EQ(blocks_per_layer(model.shape), one_block_layers ? 1 : 2) << model.name;
    EXPECT_DOUBLE_EQ(parallel_mixer_layers(model.shape), 0) << model.name;
    EXPECT_DOUBLE_EQ(tp_duplicated_params_per_layer(model.shape), 0) << model.name;
  }
  EXPECT_EQ(hybrids, 1);
}

TEST(LayerParts, SequentialHybridHasOneBlockPerLayer) {
  // (2 Mamba + 1 attention + 3 MLP) / 6 layers = 1 block per layer; no layer holds two mixers.
  EXPECT_DOUBLE_EQ(blocks_per_layer(sequential_hybrid()), 1);
  EXPECT_DOUBLE_EQ(parallel_mixer_layers(sequential_hybrid()), 0);
}

TEST(LayerParts, ParallelHybridCountsItsMixersOnce) {
  // 4 attention + 4 Mamba mixers on 4 layers: 4 layers hold two; blocks (8 - 4 + 4) / 4 = 2.
  EXPECT_DOUBLE_EQ(parallel_mixer_layers(parallel_hybrid()), 4);
  EXPECT_DOUBLE_EQ(blocks_per_layer(parallel_hybrid()), 2);
  ModelShape none;
  EXPECT_DOUBLE_EQ(blocks_per_layer(none), 0);  // no layers: no division by zero
}

TEST(LayerParts, MambaWidthsByHand) {
  // d_inner = 32 x 64 = 2,048; in_proj 2 x 2,048 + 2 x 8 x 128 + 32 = 6,176 outputs;
  // convolution channels 2,048 + 2 x 8 x 128 = 4,096.
  EXPECT_DOUBLE_EQ(mamba_inner(sequential_hybrid()), 2048);
  EXPECT_DOUBLE_EQ(mamba_in_proj_outputs(sequential_hybrid()), 6176);
  EXPECT_DOUBLE_EQ(mamba_conv_channels(sequential_hybrid()), 4096);
}

TEST(LayerParts, SparseAttentionKeysByHand) {
  ModelShape m;
  EXPECT_DOUBLE_EQ(full_attention_keys(m, 8192), 4096);  // causal: s / 2
  EXPECT_DOUBLE_EQ(indexer_keys(m, 8192), 0);            // no indexer
  EXPECT_FALSE(has_sparse_attention(m));
  m.indexer_heads = 64, m.indexer_head_dim = 128, m.indexer_top_k = 2048;
  ASSERT_TRUE(has_sparse_attention(m));
  // s = 8,192 > k = 2,048: k - k^2 / (2s) = 2,048 - 4,194,304 / 16,384 = 2,048 - 256 = 1,792
  // (the first 2,048 queries attend to i + 1 keys, the other 6,144 to 2,048:
  // (2,048 x 2,049 / 2 + 6,144 x 2,048) / 8,192 = 1,792.25, the continuous mean 1,792).
  EXPECT_DOUBLE_EQ(full_attention_keys(m, 8192), 1792);
  EXPECT_DOUBLE_EQ(full_attention_keys(m, 2048), 1024);  // s <= k: every causal key, s / 2
  EXPECT_DOUBLE_EQ(indexer_keys(m, 8192), 4096);         // the indexer scores every causal pair
}

TEST(LayerParts, IndexerWeightsAreDuplicatedOverTp) {
  // 4 attention layers of 6 with an indexer of 331,776 weights: 4 x 331,776 / 6 = 221,184.
  ModelShape m;
  m.layers = 6;
  m.attention_layers = 4;
  m.indexer_params = 331'776;
  EXPECT_DOUBLE_EQ(tp_duplicated_params_per_layer(m), 221'184);
}

}  // namespace
}  // namespace openrecipes
