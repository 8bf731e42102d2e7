#include "params/family_hy_v3.h"

#include <fmt/format.h>

#include "params/layer_list.h"
#include "params/moe_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_hy_v3(const HfConfig& c, Problems& problems) {
  MoeDecoder d;
  d.model_type = c.model_type();
  d.s = read_decoder_shape(c);
  read_gqa_sizes(c, d);
  d.experts = c.integer("num_experts", 1, 65536);
  d.top_k = c.integer("num_experts_per_tok", 1, 65536);
  d.expert_ffn = c.integer("moe_intermediate_size");
  d.shared_ffn = c.integer_or("num_shared_experts", 1, 0, 64) * d.expert_ffn;  // HYV3Config: 1
  d.mtp_layers = c.integer_or("num_nextn_predict_layers", 0, 0, 64);
  d.tied = c.boolean_or("tie_word_embeddings", false);
  const bool listed = c.has("mlp_layer_types");
  // HYV3Config without the list: layer 0 dense, the rest sparse; Tencent's config.json says the
  // same with first_k_dense_replace.
  const std::int64_t first_dense =
      listed ? 0 : c.integer_or("first_k_dense_replace", 1, 0, 100'000);
  if (!c.problems().empty()) return config_problems(c, problems);
  if (listed) {
    auto kinds = read_layer_list(c, "mlp_layer_types", d.s.layers, {"dense", "sparse"}, problems);
    if (!kinds) return config_problems(c, problems);
    for (const std::string& kind : *kinds) d.moe.push_back(kind == "sparse");
  } else {
    if (first_dense > d.s.layers) {
      problems.push_back(c.problem_at("first_k_dense_replace", "more dense layers than layers",
                                      fmt::format("at most {}", d.s.layers),
                                      std::to_string(first_dense)));
      return std::nullopt;
    }
    for (std::int64_t i = 0; i < d.s.layers; ++i) d.moe.push_back(i >= first_dense);
  }
  bool any_dense = false;
  for (bool moe : d.moe) any_dense = any_dense || !moe;
  if (any_dense) d.dense_ffn = c.integer("intermediate_size");
  d.left_out = moe_decoder_left_out(d.mtp_layers);
  return build_moe_decoder(c, d, problems);
}

}  // namespace openrecipes
