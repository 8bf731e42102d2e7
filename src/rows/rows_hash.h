// rows_sha256: the identity of a rows file's contents, independent of how the Parquet file is
// encoded, compressed or annotated (data/README.md, "rows_sha256").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "text/sha256.h"

namespace openrecipes {

/// SHA-256 over the rows in file order; for each row, its token ids as 4-byte little-endian
/// signed integers, then its loss mask as one byte (0 or 1) per token. Nothing else (no count,
/// no separators, no metadata) enters the hash.
class RowsHasher {
 public:
  /// Adds one row: `ids` and `mask` of the same length (tokens). Mask values are hashed as 0/1.
  void add(const std::int32_t* ids, const std::uint8_t* mask, std::size_t tokens);
  void add(const std::vector<std::int32_t>& ids, const std::vector<std::uint8_t>& mask) {
    add(ids.data(), mask.data(), ids.size());
  }
  /// The 64 lowercase hex digits; call once, after the last row.
  std::string hex_digest() { return hash_.hex_digest(); }

 private:
  Sha256Stream hash_;
  std::vector<unsigned char> buffer_;
};

}  // namespace openrecipes
