#include "plan/gemm_time.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace openrecipes {
namespace {

// An H100-like device: 1e15 FLOP/s at 80%, 3e12 B/s, 132 SMs, 128 x 256 tiles.
GemmDevice hopper() { return gemm_device(1e15, 0.8, 3e12, 132, false); }

TEST(GemmTime, LargeSquareGemmLosesOnlyItsLastWaveAndTheReductionEdges) {
  // 4096^3: 32 x 16 = 512 tiles, 4 waves of 132 -> 512 x 128 x 256 / (528 x 128 x 256) = 0.9697;
  // k / (k + 128) = 4096 / 4224 = 0.9697. Compute 2 x 4096^3 / (1e15 x 0.8 x q).
  GemmShape s{4096, 4096, 4096};
  double q = (512.0 / 528.0) * (4096.0 / 4224.0);
  EXPECT_NEAR(gemm_quantization_efficiency(s, hopper()), q, 1e-12);
  EXPECT_NEAR(gemm_time_s(s, hopper()), 2.0 * 4096 * 4096 * 4096 / (0.8e15 * q), 1e-12);
}

TEST(GemmTime, SmallMPaysForAWholeTile) {
  // M = 64 fills half of each 128-row tile: one wave of 1 x 16 tiles on 132 SMs.
  GemmShape small{64, 4096, 4096};
  double q = 64.0 * 4096 / (132.0 * 128 * 256) * (4096.0 / 4224.0);
  EXPECT_NEAR(gemm_quantization_efficiency(small, hopper()), q, 1e-12);
  // Per FLOP, the 64-row GEMM is far slower than the 4096-row one.
  GemmShape big{4096, 4096, 4096};
  EXPECT_GT(gemm_time_s(small, hopper()) / (64.0), 5 * gemm_time_s(big, hopper()) / 4096.0);
}

TEST(GemmTime, TinyMIsMemoryBound) {
  // M = 1: reading the 4096 x 4096 BF16 weight (33.5 MB) at 3e12 B/s beats the compute time.
  GemmShape one{1, 4096, 4096};
  double bytes = (1.0 * 4096 + 4096.0 * 4096) * 2 + 4096.0 * 2;
  double compute = 2.0 * 4096 * 4096 / (0.8e15 * gemm_quantization_efficiency(one, hopper()));
  EXPECT_GT(bytes / 3e12, 0);
  EXPECT_NEAR(gemm_time_s(one, hopper()), std::max(bytes / 3e12, compute), 1e-15);
}

TEST(GemmTime, GroupedGemmSharesWavesAcrossExperts) {
  // 32 experts of 256 tokens x 2880 x 5760 in one kernel: 32 x 2 x 23 = 1,472 tiles, 12 waves
  // (1,584 slots); useful 32 x 256 x 5760 over 1,584 x 128 x 256. With so few tokens per expert
  // reading the 32 experts' weights (1.06 GB in BF16) takes about as long as the FLOPs.
  GemmShape g{256, 5760, 2880, 32};
  double q = 32.0 * 256 * 5760 / (1584.0 * 128 * 256) * (2880.0 / 3008.0);
  EXPECT_NEAR(gemm_quantization_efficiency(g, hopper()), q, 1e-12);
  double compute = 2.0 * 256 * 5760 * 2880 * 32 / (0.8e15 * q);
  double memory = (32 * (256.0 * 2880 + 2880.0 * 5760) * 2 + 32 * 256.0 * 5760 * 2) / 3e12;
  EXPECT_NEAR(gemm_time_s(g, hopper()), std::max(compute, memory), 1e-12);
  EXPECT_GT(memory, 0.8 * compute);
}

TEST(GemmTime, BlackwellUsesLargerTilesAndEmptyGemmsTakeNoTime) {
  GemmDevice b = gemm_device(2.25e15, 0.8, 8e12, 148, true);
  EXPECT_EQ(b.tile_m, 256);
  EXPECT_EQ(b.sm_count, 148);
  EXPECT_EQ(gemm_time_s(GemmShape{0, 10, 10}, b), 0);
  EXPECT_EQ(gemm_device(1e15, 0.8, 0, 0, false).sm_count, 132);
}

}  // namespace
}  // namespace openrecipes
