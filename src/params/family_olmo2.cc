#include "params/family_olmo2.h"

#include <fmt/format.h>

#include "params/family_gqa_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_olmo2(const HfConfig& c, Problems& problems) {
  const std::size_t before = problems.size();
  GqaDecoder d;
  read_decoder_sizes(c, d);
  d.dense_ffn = c.integer("intermediate_size");
  read_gqa_attention(c, d, problems);
  d.mlp_detail = fmt::format("gate+up {} and down {}", dims(d.s.hidden, 2 * d.dense_ffn),
                             dims(d.dense_ffn, d.s.hidden));
  d.left_out = {"input embedding", "norms (with the q and k norms)"};
  if (c.boolean_or("attention_bias", false)) d.left_out.push_back("biases");
  return build_gqa_decoder(c, d, before, problems);
}

}  // namespace openrecipes
