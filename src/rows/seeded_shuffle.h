// The seeded global permutation of the rows builder: SplitMix64 and a Fisher–Yates shuffle,
// written out in data/README.md so that another implementation reproduces it bit for bit.
#pragma once

#include <cstdint>
#include <vector>

namespace openrecipes {

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
/// 2014; Vigna's reference splitmix64.c): a 64-bit state advanced by 0x9E3779B97F4A7C15 and mixed.
/// Seed 0 gives 0xE220A8397B1DCDAF first.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  /// The next 64-bit output.
  std::uint64_t next();
  /// A uniform integer in [0, bound), bound >= 1, without modulo bias: draws are rejected while
  /// below (2^64 - bound) mod bound, then reduced mod bound.
  std::uint64_t uniform_below(std::uint64_t bound);

 private:
  std::uint64_t state_;
};

/// The permutation of 0..count-1 for `seed`: start from the identity, then for i from count-1
/// down to 1 swap element i with element uniform_below(i + 1) (Durstenfeld's Fisher–Yates).
/// Element k is the input index of the k-th conversation taken.
std::vector<std::uint32_t> seeded_permutation(std::uint32_t count, std::uint64_t seed);

}  // namespace openrecipes
