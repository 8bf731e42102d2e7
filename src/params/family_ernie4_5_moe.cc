#include "params/family_ernie4_5_moe.h"

#include <fmt/format.h>

#include "params/moe_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_ernie4_5_moe(const HfConfig& c, Problems& problems) {
  MoeDecoder d;
  d.model_type = c.model_type();
  d.s = read_decoder_shape(c);
  read_gqa_sizes(c, d);
  d.experts = c.integer("moe_num_experts", 1, 65536);
  d.top_k = c.integer("moe_k", 1, 65536);
  d.top_k_field = "moe_k";
  d.expert_ffn = c.integer("moe_intermediate_size");
  d.shared_ffn = c.integer_or("moe_num_shared_experts", 2, 0, 64) * d.expert_ffn;
  const std::int64_t start = c.integer_or("moe_layer_start_index", 1, 0, 100'000);
  const std::int64_t end = c.integer_or("moe_layer_end_index", -1, -1, 100'000);
  const std::int64_t interval = c.integer_or("moe_layer_interval", 1, 1, 100'000);
  d.mtp_layers = c.integer_or("num_nextn_predict_layers", 0, 0, 64);
  d.tied = c.boolean_or("tie_word_embeddings", true);
  if (!c.problems().empty()) return config_problems(c, problems);

  const std::int64_t last = end == -1 ? d.s.layers - 1 : end;
  if (last >= d.s.layers) {
    problems.push_back(c.problem_at("moe_layer_end_index", "a layer index outside the model",
                                    fmt::format("-1 or 0 to {}", d.s.layers - 1),
                                    std::to_string(end)));
    return std::nullopt;
  }
  if (start > last) {
    problems.push_back(c.problem_at("moe_layer_start_index",
                                    "the first MoE layer comes after the last",
                                    fmt::format("at most {}", last), std::to_string(start)));
    return std::nullopt;
  }
  for (std::int64_t i = 0; i < d.s.layers; ++i) {
    d.moe.push_back((i + 1) % interval == 0 && i >= start && i <= last);
  }
  bool any_dense = false;
  for (bool moe : d.moe) any_dense = any_dense || !moe;
  if (any_dense) d.dense_ffn = c.integer("intermediate_size");
  if (!c.problems().empty()) return config_problems(c, problems);
  d.left_out = moe_decoder_left_out(d.mtp_layers);
  return build_moe_decoder(c, d, problems);
}

}  // namespace openrecipes
