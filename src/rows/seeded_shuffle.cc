#include "rows/seeded_shuffle.h"

#include <numeric>
#include <utility>

namespace openrecipes {

std::uint64_t SplitMix64::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t SplitMix64::uniform_below(std::uint64_t bound) {
  // (2^64 - bound) mod bound, computed in 64 bits; the values from there up to 2^64 are a whole
  // number of copies of [0, bound).
  std::uint64_t threshold = (0 - bound) % bound;
  for (;;) {
    std::uint64_t x = next();
    if (x >= threshold) return x % bound;
  }
}

std::vector<std::uint32_t> seeded_permutation(std::uint32_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> order(count);
  std::iota(order.begin(), order.end(), 0u);
  SplitMix64 random(seed);
  for (std::uint32_t i = count; i > 1; --i) {
    std::uint32_t j = static_cast<std::uint32_t>(random.uniform_below(i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

}  // namespace openrecipes
