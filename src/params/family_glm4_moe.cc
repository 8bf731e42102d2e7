#include "params/family_glm4_moe.h"

#include <fmt/format.h>

#include "params/moe_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_glm4_moe(const HfConfig& c, Problems& problems) {
  MoeDecoder d;
  d.model_type = c.model_type();
  d.s = read_decoder_shape(c);
  read_gqa_sizes(c, d);
  d.experts = c.integer("n_routed_experts", 1, 65536);
  d.top_k = c.integer("num_experts_per_tok", 1, 65536);
  d.expert_ffn = c.integer("moe_intermediate_size");
  // Glm4MoeConfig's defaults: one shared expert, the first layer dense.
  d.shared_ffn = c.integer_or("n_shared_experts", 1, 0, 64) * d.expert_ffn;
  const std::int64_t first_dense = c.integer_or("first_k_dense_replace", 1, 0, 100'000);
  if (first_dense > 0) d.dense_ffn = c.integer("intermediate_size");
  d.mtp_layers = c.integer_or("num_nextn_predict_layers", 0, 0, 64);
  d.tied = c.boolean_or("tie_word_embeddings", false);
  if (!c.problems().empty()) return config_problems(c, problems);
  if (first_dense > d.s.layers) {
    problems.push_back(c.problem_at("first_k_dense_replace", "more dense layers than layers",
                                    fmt::format("at most {}", d.s.layers),
                                    std::to_string(first_dense)));
    return std::nullopt;
  }
  for (std::int64_t i = 0; i < d.s.layers; ++i) d.moe.push_back(i >= first_dense);
  d.left_out = moe_decoder_left_out(d.mtp_layers);
  return build_moe_decoder(c, d, problems);
}

}  // namespace openrecipes
