#include "params/family_phi3.h"

#include <fmt/format.h>

#include "params/family_gqa_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_phi3(const HfConfig& c, Problems& problems) {
  const std::size_t before = problems.size();
  GqaDecoder d;
  read_decoder_sizes(c, d);
  d.dense_ffn = c.integer("intermediate_size");
  bool windowed = c.has("sliding_window");
  if (windowed) d.sliding_window = c.integer("sliding_window", 1, 1 << 24);
  read_gqa_attention(c, d, problems);
  // The same weights as q, k, v and o, named as Phi3Attention fuses them.
  std::int64_t q_width = d.heads * d.head_dim, kv_width = d.kv_heads * d.head_dim;
  d.attention.second = fmt::format("qkv {} + o {}", dims(d.s.hidden, q_width + 2 * kv_width),
                                   dims(q_width, d.s.hidden));
  if (windowed) d.sliding.assign(static_cast<std::size_t>(d.s.layers), true);
  d.mlp_detail = fmt::format("gate_up {} and down {}", dims(d.s.hidden, 2 * d.dense_ffn),
                             dims(d.dense_ffn, d.s.hidden));
  d.left_out = {"input embedding", "norms"};
  return build_gqa_decoder(c, d, before, problems);
}

}  // namespace openrecipes
