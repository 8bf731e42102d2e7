#include "params/family_olmoe.h"

#include "params/family_gqa_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_olmoe(const HfConfig& c, Problems& problems) {
  const std::size_t before = problems.size();
  GqaDecoder d;
  read_decoder_sizes(c, d);
  d.experts = c.integer("num_experts", 1, 65536);
  d.experts_per_token = c.integer("num_experts_per_tok", 1, 65536);
  d.expert_ffn = c.integer("intermediate_size");
  read_gqa_attention(c, d, problems);
  if (c.problems().empty()) check_experts_per_token(c, d, "num_experts_per_tok", problems);
  d.left_out = {"input embedding", "norms (with the q and k norms)"};
  if (c.boolean_or("attention_bias", false)) d.left_out.push_back("biases");
  return build_gqa_decoder(c, d, before, problems);
}

}  // namespace openrecipes
