#include "rows/rows_hash.h"

#include <bit>
#include <cstring>

namespace openrecipes {

void RowsHasher::add(const std::int32_t* ids, const std::uint8_t* mask, std::size_t tokens) {
  buffer_.resize(tokens * 5);
  unsigned char* out = buffer_.data();
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, ids, tokens * 4);
  } else {
    for (std::size_t i = 0; i < tokens; ++i) {
      auto v = static_cast<std::uint32_t>(ids[i]);
      for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<unsigned char>(v >> (8 * b));
    }
  }
  for (std::size_t i = 0; i < tokens; ++i) out[tokens * 4 + i] = mask[i] ? 1 : 0;
  hash_.update(out, buffer_.size());
}

}  // namespace openrecipes
