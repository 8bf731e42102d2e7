#include "params/family_llama4.h"

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

#include "params/layer_list.h"
#include "params/param_blocks.h"

namespace openrecipes {
namespace {

// The MoE layers: `moe_layers` when given (each index inside the model), else every
// `interleave_moe_layer_step`-th layer counted from step - 1 (configuration_llama4.py).
std::set<std::int64_t> moe_layers(const HfConfig& c, std::int64_t layers, Problems& problems) {
  std::set<std::int64_t> moe;
  if (c.has("moe_layers")) {
    for (std::int64_t layer : c.integers("moe_layers")) {
      if (layer < 0 || layer >= layers) {
        problems.push_back(c.problem_at("moe_layers", "a layer index outside the model",
                                        fmt::format("0 to {}", layers - 1), std::to_string(layer)));
        return {};
      }
      moe.insert(layer);
    }
    return moe;
  }
  std::int64_t step = c.integer_or("interleave_moe_layer_step", 1, 1, 100'000);
  for (std::int64_t i = step - 1; i < layers; i += step) moe.insert(i);
  return moe;
}

// How many layers use chunked local attention (the RoPE layers): `layer_types` when given, else
// `no_rope_layers` (1 = RoPE and chunked, 0 = global NoPE), else all but every
// `no_rope_layer_interval`-th. -1 with a problem added (or recorded on `c`) when a list is bad.
std::int64_t chunked_layers(const HfConfig& c, std::int64_t layers, Problems& problems) {
  std::optional<std::vector<std::string>> types =
      read_layer_list(c, "layer_types", layers, {"chunked_attention", "full_attention"}, problems);
  if (!types) return -1;
  std::int64_t chunked = 0;
  if (!types->empty()) {
    for (const std::string& type : *types) chunked += type == "chunked_attention" ? 1 : 0;
    return chunked;
  }
  std::vector<std::int64_t> no_rope = c.integers("no_rope_layers");
  if (!no_rope.empty()) {
    if (static_cast<std::int64_t>(no_rope.size()) != layers) {
      problems.push_back(c.problem_at("no_rope_layers", "no_rope_layers must list every layer",
                                      fmt::format("{} entries (num_hidden_layers)", layers),
                                      fmt::format("{} entries", no_rope.size())));
      return -1;
    }
    for (std::size_t i = 0; i < no_rope.size(); ++i) {
      if (no_rope[i] != 0 && no_rope[i] != 1) {
        problems.push_back(c.problem_at(fmt::format("no_rope_layers[{}]", i), "unknown layer kind",
                                        "1 (RoPE, chunked attention) or 0 (NoPE, global attention)",
                                        std::to_string(no_rope[i])));
        return -1;
      }
      chunked += no_rope[i];
    }
    return chunked;
  }
  std::int64_t interval = c.integer_or("no_rope_layer_interval", 4, 1, 100'000);
  for (std::int64_t i = 0; i < layers; ++i) chunked += (i + 1) % interval != 0 ? 1 : 0;
  return chunked;
}

}  // namespace

std::optional<FamilyModel> read_llama4(const HfConfig& c, Problems& problems) {
  auto finish_with_problems = [&]() -> std::optional<FamilyModel> {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  };
  // Defaults are Llama4TextConfig's (configuration_llama4.py), Scout's sizes.
  Shape s{c.integer("hidden_size"), c.integer("num_hidden_layers", 1, 100'000),
          c.integer("vocab_size")};
  std::int64_t heads = c.integer_or("num_attention_heads", 40, 1, 4096);
  std::int64_t kv_heads = c.integer_or("num_key_value_heads", 8, 1, 4096);
  std::int64_t head_dim = c.integer_or("head_dim", 128, 1, 4096);
  std::int64_t expert_ffn = c.integer_or("intermediate_size", 8192, 1);
  std::int64_t dense_ffn = c.integer_or("intermediate_size_mlp", 16384, 1);
  std::int64_t experts = c.integer_or("num_local_experts", 16, 1, 65536);
  std::int64_t top_k = c.integer_or("num_experts_per_tok", 1, 1, 65536);
  std::int64_t chunk = c.integer_or("attention_chunk_size", 8192, 0, 1 << 24);
  bool tied = c.boolean_or("tie_word_embeddings", false);
  bool biases = c.boolean_or("attention_bias", false);
  if (!c.problems().empty()) return finish_with_problems();

  const std::size_t before = problems.size();
  if (top_k > experts) {
    problems.push_back(c.problem_at("num_experts_per_tok", "more experts per token than experts",
                                    fmt::format("at most {}", experts), std::to_string(top_k)));
  }
  if (heads % kv_heads != 0) {
    problems.push_back(
        c.problem_at("num_key_value_heads", "key/value heads must divide the attention heads",
                     fmt::format("a divisor of {}", heads), std::to_string(kv_heads)));
  }
  std::set<std::int64_t> moe = moe_layers(c, s.layers, problems);
  std::int64_t chunked = chunked_layers(c, s.layers, problems);
  if (problems.size() != before || !c.problems().empty()) return finish_with_problems();
  if (chunk == 0) chunked = 0;  // a chunk of 0: every layer attends globally

  // modeling_llama4.py: Llama4TextAttention q/k/v/o (its q/k L2 norm has no weight);
  // Llama4TextMoe = Llama4TextExperts (gate_up_proj hidden x 2*intermediate_size and down_proj
  // per expert), a router Linear(hidden, num_local_experts) and shared_expert
  // Llama4TextMLP(intermediate_size), added ungated; dense layers Llama4TextMLP with
  // intermediate_size_mlp.
  std::int64_t q_width = heads * head_dim, kv_width = kv_heads * head_dim;
  std::int64_t attention = s.hidden * q_width + 2 * s.hidden * kv_width + q_width * s.hidden;
  std::string attention_detail =
      fmt::format("q {} + k {} + v {} + o {}", dims(s.hidden, q_width), dims(s.hidden, kv_width),
                  dims(s.hidden, kv_width), dims(q_width, s.hidden));
  std::int64_t expert = gated_mlp(s.hidden, expert_ffn);
  Tally tally;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    tally.add("attention", attention, attention_detail);
    if (moe.count(i)) {
      tally.add("routed experts", top_k * expert,
                fmt::format("top-{} of {} experts, each gate+up {} and down {}", top_k, experts,
                            dims(s.hidden, 2 * expert_ffn), dims(expert_ffn, s.hidden)));
      tally.add("shared experts", expert,
                fmt::format("gate+up {} and down {}", dims(s.hidden, 2 * expert_ffn),
                            dims(expert_ffn, s.hidden)));
      tally.add("router", s.hidden * experts, dims(s.hidden, experts));
    } else {
      tally.add("dense MLP", gated_mlp(s.hidden, dense_ffn),
                fmt::format("gate+up {} and down {}", dims(s.hidden, 2 * dense_ffn),
                            dims(dense_ffn, s.hidden)));
    }
  }
  tally.add("output layer", s.vocab * s.hidden,
            fmt::format("{}{}", dims(s.hidden, s.vocab), tied ? " (tied to the embedding)" : ""));

  FamilyModel model;
  ActiveParamCount& count = model.count;
  count.model_type = c.model_type();
  count.components = tally.take();
  std::optional<std::int64_t> total = sum_components(count.components, c, problems);
  if (!total) return std::nullopt;
  count.active_params = *total;
  count.left_out = {"input embedding", "norms"};
  if (biases) count.left_out.push_back("biases");

  model.shape = shape_base(count, s, tied);
  ModelShape& shape = model.shape;
  shape.attention_heads = static_cast<int>(heads);
  shape.kv_heads = static_cast<int>(kv_heads);
  shape.head_dim = static_cast<int>(head_dim);
  shape.attention_layers = static_cast<int>(s.layers);
  // Chunked attention sees at most attention_chunk_size earlier tokens: the planner's sliding
  // window of that size bounds it from above.
  shape.sliding_window_layers = static_cast<int>(chunked);
  shape.sliding_window = chunked > 0 ? static_cast<int>(chunk) : 0;
  shape.gated_mlp = true;
  std::int64_t moe_count = static_cast<std::int64_t>(moe.size());
  shape.dense_mlp_layers = static_cast<int>(s.layers - moe_count);
  shape.dense_ffn_hidden_size = shape.dense_mlp_layers > 0 ? static_cast<int>(dense_ffn) : 0;
  shape.dense_mlp_params = shape.dense_mlp_layers > 0 ? gated_mlp(s.hidden, dense_ffn) : 0;
  shape.moe_layers = static_cast<int>(moe_count);
  if (moe_count > 0) {
    shape.experts = static_cast<int>(experts);
    shape.experts_per_token = static_cast<int>(top_k);
    shape.expert_ffn_hidden_size = static_cast<int>(expert_ffn);
    shape.shared_expert_ffn_hidden_size = static_cast<int>(expert_ffn);
    shape.expert_params = expert;
    shape.shared_expert_params = expert;
    shape.router_params = s.hidden * experts;
  }
  shape.attention_params = attention;
  return model;
}

}  // namespace openrecipes
