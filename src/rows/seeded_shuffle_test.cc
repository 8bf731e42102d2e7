#include "rows/seeded_shuffle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace openrecipes {
namespace {

// Vigna's splitmix64.c from state 0 (the values other implementations publish).
TEST(SplitMix64, MatchesTheReferenceOutputsForSeedZero) {
  SplitMix64 random(0);
  EXPECT_EQ(random.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(random.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(random.next(), 0x06C45D188009454Full);
}

TEST(SplitMix64, UniformBelowStaysInRangeAndCoversIt) {
  SplitMix64 random(7);
  std::map<std::uint64_t, int> seen;
  for (int i = 0; i < 6000; ++i) {
    std::uint64_t x = random.uniform_below(6);
    ASSERT_LT(x, 6u);
    ++seen[x];
  }
  ASSERT_EQ(seen.size(), 6u);
  for (const auto& [value, count] : seen) EXPECT_NEAR(count, 1000, 150) << value;
  EXPECT_EQ(random.uniform_below(1), 0u);
}

// The reference vectors of data/README.md, which another implementation must reproduce.
TEST(SeededPermutation, MatchesTheDocumentedVectors) {
  EXPECT_EQ(seeded_permutation(10, 42), (std::vector<std::uint32_t>{0, 9, 5, 8, 6, 4, 7, 2, 1, 3}));
  EXPECT_EQ(seeded_permutation(10, 43), (std::vector<std::uint32_t>{4, 2, 5, 6, 1, 3, 9, 8, 7, 0}));
  EXPECT_EQ(seeded_permutation(1, 42), (std::vector<std::uint32_t>{0}));
  EXPECT_TRUE(seeded_permutation(0, 42).empty());
}

TEST(SeededPermutation, IsAPermutationAndDependsOnTheSeed) {
  std::vector<std::uint32_t> order = seeded_permutation(100000, 42);
  std::vector<std::uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_EQ(order, seeded_permutation(100000, 42));
  EXPECT_NE(order, seeded_permutation(100000, 43));
}

}  // namespace
}  // namespace openrecipes
