#include "params/family_gqa_decoder.h"

#include <fmt/format.h>

#include <algorithm>

#include "params/layer_list.h"

namespace openrecipes {
namespace {

// The planner's sizes of `d`, with the per-layer counts of `count`.
ModelShape shape_of(const GqaDecoder& d, const ActiveParamCount& count) {
  ModelShape shape = shape_base(count, d.s, d.tied_embeddings);
  shape.attention_heads = static_cast<int>(d.heads);
  shape.kv_heads = static_cast<int>(d.kv_heads);
  shape.head_dim = static_cast<int>(d.head_dim);
  shape.attention_layers = shape.layers;
  shape.attention_params = d.attention.first;
  shape.sliding_window_layers =
      static_cast<int>(std::count(d.sliding.begin(), d.sliding.end(), true));
  if (shape.sliding_window_layers > 0) shape.sliding_window = static_cast<int>(d.sliding_window);
  shape.gated_mlp = true;
  shape.mtp_layers = static_cast<int>(d.mtp_layers);
  if (d.experts > 0) {
    shape.moe_layers = shape.layers;
    shape.experts = static_cast<int>(d.experts);
    shape.experts_per_token = static_cast<int>(d.experts_per_token);
    shape.expert_ffn_hidden_size = static_cast<int>(d.expert_ffn);
    shape.expert_params = gated_mlp(d.s.hidden, d.expert_ffn);
    shape.router_params = d.s.hidden * d.experts;
  } else {
    shape.dense_mlp_layers = shape.layers;
    shape.dense_ffn_hidden_size = static_cast<int>(d.dense_ffn);
    shape.dense_mlp_params = gated_mlp(d.s.hidden, d.dense_ffn);
  }
  return shape;
}

}  // namespace

void read_decoder_sizes(const HfConfig& c, GqaDecoder& d) {
  d.model_type = c.model_type();
  d.s = Shape{c.integer("hidden_size"), c.integer("num_hidden_layers", 1, 100'000),
              c.integer("vocab_size")};
  d.tied_embeddings = c.boolean_or("tie_word_embeddings", false);
}

void read_gqa_attention(const HfConfig& c, GqaDecoder& d, Problems& problems) {
  d.heads = c.integer("num_attention_heads", 1, 4096);
  d.kv_heads = c.integer_or("num_key_value_heads", d.heads, 1, 4096);
  bool explicit_head_dim = c.has("head_dim");
  d.head_dim = explicit_head_dim ? c.integer("head_dim", 1, 4096) : d.s.hidden / d.heads;
  if (!c.problems().empty()) return;  // relations only between valid sizes
  if (d.heads % d.kv_heads != 0) {
    problems.push_back(
        c.problem_at("num_key_value_heads", "key/value heads must divide the attention heads",
                     fmt::format("a divisor of {}", d.heads), std::to_string(d.kv_heads)));
  }
  if (!explicit_head_dim && (d.s.hidden % d.heads != 0 || d.head_dim == 0)) {
    problems.push_back(
        c.problem_at("num_attention_heads", "without head_dim, the heads must divide hidden_size",
                     fmt::format("a divisor of {}", d.s.hidden), std::to_string(d.heads)));
  }
  d.attention = gqa(c, d.s, false);
}

std::optional<std::vector<bool>> sliding_from_layer_types(const HfConfig& c, std::int64_t layers,
                                                          Problems& problems) {
  std::optional<std::vector<std::string>> types =
      read_layer_list(c, "layer_types", layers, {"full_attention", "sliding_attention"}, problems);
  if (!types) return std::nullopt;
  std::vector<bool> sliding;
  for (const std::string& type : *types) sliding.push_back(type == "sliding_attention");
  return sliding;
}

bool check_experts_per_token(const HfConfig& c, const GqaDecoder& d, const std::string& field,
                             Problems& problems) {
  if (d.experts_per_token <= d.experts) return true;
  problems.push_back(c.problem_at(field, "more experts per token than experts",
                                  fmt::format("at most {}", d.experts),
                                  std::to_string(d.experts_per_token)));
  return false;
}

std::optional<FamilyModel> build_gqa_decoder(const HfConfig& c, const GqaDecoder& d,
                                             std::size_t problems_before, Problems& problems) {
  if (problems.size() != problems_before || !c.problems().empty()) {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  }
  const Shape& s = d.s;
  Tally tally;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    tally.add("attention", d.attention.first, d.attention.second);
    if (d.experts > 0) {
      tally.add(
          "routed experts", d.experts_per_token * gated_mlp(s.hidden, d.expert_ffn),
          fmt::format("top-{} of {} experts, each gate+up {} and down {}", d.experts_per_token,
                      d.experts, dims(s.hidden, 2 * d.expert_ffn), dims(d.expert_ffn, s.hidden)));
      tally.add("router", s.hidden * d.experts, dims(s.hidden, d.experts));
    } else {
      tally.add("dense MLP", gated_mlp(s.hidden, d.dense_ffn), d.mlp_detail);
    }
  }
  // Counted once even when tied to the input embedding (docs/active-params.md).
  tally.add("output layer", s.vocab * s.hidden, dims(s.hidden, s.vocab));

  FamilyModel model;
  model.count.model_type = d.model_type;
  model.count.components = tally.take();
  std::optional<std::int64_t> total = sum_components(model.count.components, c, problems);
  if (!total) return std::nullopt;
  model.count.active_params = *total;
  model.count.left_out = d.left_out;
  if (d.mtp_layers > 0) model.count.left_out.push_back(mtp_layers_left_out(d.mtp_layers));
  model.shape = shape_of(d, model.count);
  return model;
}

}  // namespace openrecipes
