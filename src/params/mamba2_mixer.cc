#include "params/mamba2_mixer.h"

#include <fmt/format.h>

namespace openrecipes {

BlockParams mamba2_mixer(std::int64_t hidden, const Mamba2Sizes& m) {
  std::int64_t conv_channels = m.inner + 2 * m.groups * m.state;        // x, B and C
  std::int64_t in_proj = hidden * (m.inner + conv_channels + m.heads);  // + z and dt
  std::int64_t conv = conv_channels * m.kernel;
  std::int64_t out_proj = m.inner * hidden;
  return {in_proj + conv + out_proj, fmt::format("in_proj {} + conv {}x{} + out_proj {}",
                                                 dims(hidden, m.inner + conv_channels + m.heads),
                                                 conv_channels, m.kernel, dims(m.inner, hidden))};
}

}  // namespace openrecipes
