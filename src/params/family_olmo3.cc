#include "params/family_olmo3.h"

#include <fmt/format.h>

#include "params/family_gqa_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_olmo3(const HfConfig& c, Problems& problems) {
  const std::size_t before = problems.size();
  GqaDecoder d;
  read_decoder_sizes(c, d);
  d.dense_ffn = c.integer("intermediate_size");
  d.sliding_window = c.integer_or("sliding_window", 4096, 1, 1 << 24);
  read_gqa_attention(c, d, problems);
  std::optional<std::vector<bool>> sliding = sliding_from_layer_types(c, d.s.layers, problems);
  if (!sliding) return build_gqa_decoder(c, d, before, problems);  // reports the problem
  d.sliding = *sliding;
  if (d.sliding.empty()) {
    // Olmo3Config: "sliding_attention" if (i + 1) % 4 != 0 else "full_attention".
    for (std::int64_t i = 0; i < d.s.layers; ++i) d.sliding.push_back((i + 1) % 4 != 0);
  }
  d.mlp_detail = fmt::format("gate+up {} and down {}", dims(d.s.hidden, 2 * d.dense_ffn),
                             dims(d.dense_ffn, d.s.hidden));
  d.left_out = {"input embedding", "norms (with the q and k norms)"};
  if (c.boolean_or("attention_bias", false)) d.left_out.push_back("biases");
  return build_gqa_decoder(c, d, before, problems);
}

}  // namespace openrecipes
