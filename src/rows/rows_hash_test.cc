#include "rows/rows_hash.h"

#include <gtest/gtest.h>

#include "text/sha256.h"

namespace openrecipes {
namespace {

// data/README.md: per row, the ids as 4-byte little-endian signed integers, then the mask bytes.
TEST(RowsHasher, HashesTheDocumentedByteLayout) {
  RowsHasher hasher;
  hasher.add({1, 256, -2}, {0, 1, 1});
  hasher.add({0x01020304, 0, 7}, {1, 0, 0});
  std::string bytes(
      "\x01\x00\x00\x00\x00\x01\x00\x00\xfe\xff\xff\xff\x00\x01\x01"
      "\x04\x03\x02\x01\x00\x00\x00\x00\x07\x00\x00\x00\x01\x00\x00",
      30);
  EXPECT_EQ(hasher.hex_digest(), sha256_hex(bytes));
}

TEST(RowsHasher, ChangesWithAnyIdOrMaskAndWithRowOrder) {
  auto digest = [](std::vector<std::vector<std::int32_t>> ids,
                   std::vector<std::vector<std::uint8_t>> masks) {
    RowsHasher hasher;
    for (std::size_t i = 0; i < ids.size(); ++i) hasher.add(ids[i], masks[i]);
    return hasher.hex_digest();
  };
  std::string base = digest({{1, 2}, {3, 4}}, {{0, 1}, {1, 1}});
  EXPECT_NE(base, digest({{1, 2}, {3, 5}}, {{0, 1}, {1, 1}}));
  EXPECT_NE(base, digest({{1, 2}, {3, 4}}, {{0, 1}, {1, 0}}));
  EXPECT_NE(base, digest({{3, 4}, {1, 2}}, {{1, 1}, {0, 1}}));
  EXPECT_EQ(base, digest({{1, 2}, {3, 4}}, {{0, 1}, {1, 1}}));
}

}  // namespace
}  // namespace openrecipes
