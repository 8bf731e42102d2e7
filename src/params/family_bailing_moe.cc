#include "params/family_bailing_moe.h"

#include <fmt/format.h>

#include "params/moe_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_bailing_moe(const HfConfig& c, Problems& problems) {
  MoeDecoder d;
  d.model_type = c.model_type();
  d.s = read_decoder_shape(c);
  read_gqa_sizes(c, d);
  // The fused projection holds q, k and v: (heads + 2 kv) x d rows.
  d.attention_detail = fmt::format("query_key_value {} + dense {}",
                                   dims(d.s.hidden, (d.heads + 2 * d.kv_heads) * d.head_dim),
                                   dims(d.heads * d.head_dim, d.s.hidden));
  d.experts = c.integer("num_experts", 1, 65536);
  d.top_k = c.integer("num_experts_per_tok", 1, 65536);
  d.expert_ffn = c.integer("moe_intermediate_size");
  const std::int64_t shared_width = c.has("moe_shared_expert_intermediate_size")
                                        ? c.integer("moe_shared_expert_intermediate_size")
                                        : d.expert_ffn;
  d.shared_ffn = c.integer_or("num_shared_experts", 0, 0, 64) * shared_width;
  const std::int64_t first_dense = c.integer_or("first_k_dense_replace", 0, 0, 100'000);
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
