#include "params/moe_decoder.h"

#include <fmt/format.h>

#include <algorithm>

namespace openrecipes {
namespace {

// Checks the relations between sizes that are valid one by one; adds a problem for each broken.
bool check_relations(const HfConfig& c, const MoeDecoder& d, Problems& problems) {
  const std::size_t before = problems.size();
  auto layer_list = [&](const std::vector<bool>& list, bool may_be_empty, const std::string& what) {
    if (!(may_be_empty && list.empty()) && static_cast<std::int64_t>(list.size()) != d.s.layers) {
      problems.push_back(c.problem_at(what, "the layer list must have one entry per layer",
                                      fmt::format("{} entries", d.s.layers),
                                      fmt::format("{} entries", list.size())));
    }
  };
  layer_list(d.moe, false, "num_hidden_layers");
  layer_list(d.sliding, true, "num_hidden_layers");
  if (d.kv_heads > 0 && d.heads % d.kv_heads != 0) {
    problems.push_back(
        c.problem_at("num_key_value_heads", "key/value heads must divide the attention heads",
                     fmt::format("a divisor of {}", d.heads), std::to_string(d.kv_heads)));
  }
  bool any_moe = std::find(d.moe.begin(), d.moe.end(), true) != d.moe.end();
  if (any_moe && d.top_k > d.experts) {
    problems.push_back(c.problem_at(d.top_k_field, "more experts per token than experts",
                                    fmt::format("at most {}", d.experts), std::to_string(d.top_k)));
  }
  return problems.size() == before;
}

}  // namespace

Shape read_decoder_shape(const HfConfig& c) {
  return Shape{c.integer("hidden_size"), c.integer("num_hidden_layers", 1, 100'000),
               c.integer("vocab_size")};
}

void read_gqa_sizes(const HfConfig& c, MoeDecoder& d) {
  d.heads = c.integer("num_attention_heads", 1, 4096);
  d.kv_heads = c.integer_or("num_key_value_heads", d.heads, 1, 4096);
  d.head_dim = c.has("head_dim") ? c.integer("head_dim", 1, 4096)
                                 : d.s.hidden / std::max<std::int64_t>(d.heads, 1);
  d.attention_detail = fmt::format(
      "q {} + k {} + v {} + o {}", dims(d.s.hidden, d.heads * d.head_dim),
      dims(d.s.hidden, d.kv_heads * d.head_dim), dims(d.s.hidden, d.kv_heads * d.head_dim),
      dims(d.heads * d.head_dim, d.s.hidden));
}

std::vector<std::string> moe_decoder_left_out(std::int64_t mtp_layers) {
  std::vector<std::string> left_out = {"input embedding", "norms", "biases"};
  if (mtp_layers > 0) left_out.push_back(mtp_layers_left_out(mtp_layers));
  return left_out;
}

std::optional<FamilyModel> config_problems(const HfConfig& c, Problems& problems) {
  problems.insert(problems.end(), c.problems().begin(), c.problems().end());
  return std::nullopt;
}

std::optional<FamilyModel> build_moe_decoder(const HfConfig& c, const MoeDecoder& d,
                                             Problems& problems) {
  if (!c.problems().empty()) return config_problems(c, problems);
  if (!check_relations(c, d, problems)) return std::nullopt;

  const Shape& s = d.s;
  const std::int64_t attention =
      2 * s.hidden * d.heads * d.head_dim + 2 * s.hidden * d.kv_heads * d.head_dim;
  const std::int64_t dense = gated_mlp(s.hidden, d.dense_ffn);
  const std::int64_t expert = gated_mlp(s.hidden, d.expert_ffn);
  const std::int64_t shared = gated_mlp(s.hidden, d.shared_ffn);
  const std::int64_t router = s.hidden * d.experts;
  Tally tally;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    tally.add("attention", attention, d.attention_detail);
    if (d.moe[static_cast<std::size_t>(i)]) {
      tally.add("routed experts", d.top_k * expert,
                fmt::format("top-{} of {} experts, each gate+up {} and down {}", d.top_k, d.experts,
                            dims(s.hidden, 2 * d.expert_ffn), dims(d.expert_ffn, s.hidden)));
      if (d.shared_ffn > 0) {
        tally.add("shared experts", shared,
                  fmt::format("gate+up {} and down {}", dims(s.hidden, 2 * d.shared_ffn),
                              dims(d.shared_ffn, s.hidden)));
      }
      tally.add("router", router, dims(s.hidden, d.experts));
    } else {
      tally.add("dense MLP", dense,
                fmt::format("gate+up {} and down {}", dims(s.hidden, 2 * d.dense_ffn),
                            dims(d.dense_ffn, s.hidden)));
    }
  }
  tally.add("output layer", s.vocab * s.hidden,
            dims(s.hidden, s.vocab) + (d.tied ? " (tied to the input embedding)" : ""));

  FamilyModel model;
  model.count.model_type = d.model_type;
  model.count.components = tally.take();
  std::optional<std::int64_t> total = sum_components(model.count.components, c, problems);
  if (!total) return std::nullopt;
  model.count.active_params = *total;
  model.count.left_out = d.left_out;

  model.shape = shape_base(model.count, s, d.tied);
  ModelShape& shape = model.shape;
  shape.mtp_layers = static_cast<int>(d.mtp_layers);
  shape.attention_heads = static_cast<int>(d.heads);
  shape.kv_heads = static_cast<int>(d.kv_heads);
  shape.head_dim = static_cast<int>(d.head_dim);
  shape.attention_layers = static_cast<int>(s.layers);
  shape.sliding_window_layers =
      static_cast<int>(std::count(d.sliding.begin(), d.sliding.end(), true));
  shape.sliding_window = shape.sliding_window_layers > 0 ? static_cast<int>(d.sliding_window) : 0;
  shape.gated_mlp = true;
  shape.moe_layers = static_cast<int>(std::count(d.moe.begin(), d.moe.end(), true));
  shape.dense_mlp_layers = shape.layers - shape.moe_layers;
  if (shape.dense_mlp_layers > 0) {
    shape.dense_ffn_hidden_size = static_cast<int>(d.dense_ffn);
    shape.dense_mlp_params = dense;
  }
  if (shape.moe_layers > 0) {
    shape.experts = static_cast<int>(d.experts);
    shape.experts_per_token = static_cast<int>(d.top_k);
    shape.expert_ffn_hidden_size = static_cast<int>(d.expert_ffn);
    shape.expert_params = expert;
    shape.shared_expert_ffn_hidden_size = static_cast<int>(d.shared_ffn);
    shape.shared_expert_params = d.shared_ffn > 0 ? shared : 0;
    shape.router_params = router;
  }
  shape.attention_params = attention;
  return model;
}

}  // namespace openrecipes
