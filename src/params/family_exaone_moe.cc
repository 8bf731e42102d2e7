#include "params/family_exaone_moe.h"

#include <fmt/format.h>

#include <algorithm>

#include "params/layer_list.h"
#include "params/moe_decoder.h"

namespace openrecipes {

std::optional<FamilyModel> read_exaone_moe(const HfConfig& c, Problems& problems) {
  MoeDecoder d;
  d.model_type = c.model_type();
  d.s = read_decoder_shape(c);
  read_gqa_sizes(c, d);
  d.experts = c.integer("num_experts", 1, 65536);
  d.top_k = c.integer("num_experts_per_tok", 1, 65536);
  d.expert_ffn = c.integer("moe_intermediate_size");
  d.shared_ffn = c.integer_or("num_shared_experts", 1, 0, 64) * d.expert_ffn;  // default: 1
  d.mtp_layers = c.integer_or("num_nextn_predict_layers", 0, 0, 64);
  d.tied = c.boolean_or("tie_word_embeddings", false);
  const bool mlp_listed = c.has("mlp_layer_types");
  const std::int64_t first_dense =
      mlp_listed ? 0 : c.integer_or("first_k_dense_replace", 1, 0, 100'000);
  const bool attention_listed = c.has("layer_types");
  // Without `layer_types`, ExaoneMoeConfig slides every layer but each
  // `sliding_window_pattern`-th. A config with neither `layer_types` nor a `sliding_window` is
  // read as sliding nowhere: a null window turns sliding off, and an absent one cannot be told
  // from a null one here.
  const bool slides = attention_listed || c.has("sliding_window");
  d.sliding_window = c.integer_or("sliding_window", 0, 1, 1 << 24);
  const std::int64_t pattern =
      attention_listed || !slides ? 1 : c.integer_or("sliding_window_pattern", 4, 1, 100'000);
  if (!c.problems().empty()) return config_problems(c, problems);

  if (mlp_listed) {
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
  if (attention_listed) {
    auto kinds = read_layer_list(c, "layer_types", d.s.layers,
                                 {"full_attention", "sliding_attention"}, problems);
    if (!kinds) return config_problems(c, problems);
    for (const std::string& kind : *kinds) d.sliding.push_back(kind == "sliding_attention");
  } else if (slides) {
    for (std::int64_t i = 0; i < d.s.layers; ++i) d.sliding.push_back((i + 1) % pattern != 0);
  }
  if (std::count(d.sliding.begin(), d.sliding.end(), true) > 0 && d.sliding_window == 0) {
    d.sliding_window = c.integer("sliding_window", 1, 1 << 24);  // sliding layers need a window
  }
  bool any_dense = false;
  for (bool moe : d.moe) any_dense = any_dense || !moe;
  if (any_dense) d.dense_ffn = c.integer("intermediate_size");
  d.left_out = moe_decoder_left_out(d.mtp_layers);
  return build_moe_decoder(c, d, problems);
}

}  // namespace openrecipes
