#include "params/family_gemma4.h"

#include <fmt/format.h>

#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "params/layer_list.h"
#include "params/param_blocks.h"

namespace openrecipes {
namespace {

// The sizes a Gemma 4 text config gives (modeling_gemma4.py reads each of them).
struct Gemma4Sizes {
  Shape s;
  std::int64_t ffn = 0, heads = 0, kv_heads = 0, head_dim = 0;
  std::int64_t global_head_dim = 0, global_kv_heads = 0;
  bool k_eq_v = false, double_wide = false, tied = true, biases = false;
  std::int64_t kv_shared = 0;           // the last kv_shared layers reuse earlier K/V
  std::int64_t ple = 0, ple_vocab = 0;  // per-layer embedding width and vocabulary
  std::int64_t experts = 0, top_k = 0, expert_ffn = 0;  // with enable_moe_block
  std::int64_t window = 0;
  std::vector<bool> sliding;  // per layer
};

// Reads the sizes; bad or missing ones are recorded on `c`, contradictions on `problems`.
Gemma4Sizes read_sizes(const HfConfig& c, Problems& problems) {
  Gemma4Sizes z;
  z.s = Shape{c.integer("hidden_size"), c.integer("num_hidden_layers", 1, 100'000),
              c.integer("vocab_size")};
  z.ffn = c.integer("intermediate_size");
  z.heads = c.integer("num_attention_heads", 1, 4096);
  z.kv_heads = c.integer("num_key_value_heads", 1, 4096);
  z.head_dim = c.integer("head_dim", 1, 4096);
  // Gemma4TextAttention: global layers use global_head_dim when it is set, else head_dim.
  z.global_head_dim = c.integer_or("global_head_dim", z.head_dim, 1, 4096);
  z.k_eq_v = c.boolean_or("attention_k_eq_v", false);
  if (z.k_eq_v) z.global_kv_heads = c.integer("num_global_key_value_heads", 1, 4096);
  z.kv_shared = c.integer_or("num_kv_shared_layers", 0, 0, 100'000);
  z.double_wide = c.boolean_or("use_double_wide_mlp", false);
  z.ple = c.integer_or("hidden_size_per_layer_input", 0, 0, 4096);
  if (z.ple > 0) z.ple_vocab = c.integer_or("vocab_size_per_layer_input", z.s.vocab, 1);
  if (c.boolean_or("enable_moe_block", false)) {
    z.experts = c.integer("num_experts", 1, 65536);
    z.top_k = c.integer("top_k_experts", 1, 65536);
    z.expert_ffn = c.has("moe_intermediate_size") ? c.integer("moe_intermediate_size")
                                                  : c.integer("expert_intermediate_size");
  }
  z.tied = c.boolean_or("tie_word_embeddings", true);
  z.biases = c.boolean_or("attention_bias", false);
  if (!c.problems().empty()) return z;

  if (!c.has("layer_types")) {
    problems.push_back(c.problem_at(
        "layer_types", "missing required field",
        fmt::format("a list of {} sliding_attention or full_attention", z.s.layers), "nothing"));
    return z;
  }
  std::optional<std::vector<std::string>> listed = read_layer_list(
      c, "layer_types", z.s.layers, {"sliding_attention", "full_attention"}, problems);
  if (!listed) return z;
  const std::vector<std::string>& types = *listed;
  for (const std::string& type : types) z.sliding.push_back(type == "sliding_attention");
  // A KV-sharing layer takes the K/V of the last earlier non-sharing layer of its kind.
  std::int64_t first_shared = z.s.layers - z.kv_shared;
  if (z.kv_shared >= z.s.layers) {
    problems.push_back(c.problem_at("num_kv_shared_layers", "every layer would share K/V",
                                    fmt::format("at most {}", z.s.layers - 1),
                                    std::to_string(z.kv_shared)));
    return z;
  }
  std::set<bool> own_kinds(z.sliding.begin(), z.sliding.begin() + first_shared);
  for (std::int64_t i = first_shared; i < z.s.layers; ++i) {
    if (!own_kinds.count(z.sliding[static_cast<std::size_t>(i)])) {
      problems.push_back(
          c.problem_at("num_kv_shared_layers",
                       "a KV-sharing layer has no earlier layer of its kind to share from",
                       fmt::format("a {} layer before layer {}", types[static_cast<std::size_t>(i)],
                                   first_shared),
                       std::to_string(z.kv_shared)));
      return z;
    }
  }
  for (std::int64_t kv : {z.kv_heads, z.global_kv_heads}) {
    if (kv > 0 && z.heads % kv != 0) {
      problems.push_back(
          c.problem_at(kv == z.kv_heads ? "num_key_value_heads" : "num_global_key_value_heads",
                       "key/value heads must divide the attention heads",
                       fmt::format("a divisor of {}", z.heads), std::to_string(kv)));
      return z;
    }
  }
  if (z.experts > 0 && z.top_k > z.experts) {
    problems.push_back(c.problem_at("top_k_experts", "more experts per token than experts",
                                    fmt::format("at most {}", z.experts), std::to_string(z.top_k)));
    return z;
  }
  for (bool b : z.sliding) {
    if (b) {
      z.window = c.integer("sliding_window", 1, 1 << 24);
      break;
    }
  }
  return z;
}

}  // namespace

std::optional<FamilyModel> read_gemma4(const HfConfig& c, Problems& problems) {
  const std::size_t before = problems.size();
  Gemma4Sizes z = read_sizes(c, problems);
  if (problems.size() != before || !c.problems().empty()) {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  }
  const Shape& s = z.s;
  const std::int64_t first_shared = s.layers - z.kv_shared;
  Tally tally;
  std::int64_t attention_total = 0, mlp_total = 0, sliding_count = 0;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    bool sliding = z.sliding[static_cast<std::size_t>(i)];
    bool shares_kv = i >= first_shared;
    sliding_count += sliding ? 1 : 0;
    // Gemma4TextAttention: q and o always; k (and v unless keys double as values) unless the
    // layer reuses an earlier layer's K/V.
    std::int64_t d = sliding ? z.head_dim : z.global_head_dim;
    bool k_is_v = !sliding && z.k_eq_v;
    std::int64_t kv_heads = k_is_v ? z.global_kv_heads : z.kv_heads;
    std::int64_t q = s.hidden * z.heads * d, o = z.heads * d * s.hidden;
    std::int64_t k = shares_kv ? 0 : s.hidden * kv_heads * d;
    std::int64_t v = shares_kv || k_is_v ? 0 : k;
    std::string detail = fmt::format("q {} + ", dims(s.hidden, z.heads * d));
    if (!shares_kv) detail += fmt::format("k {} + ", dims(s.hidden, kv_heads * d));
    if (v > 0) detail += fmt::format("v {} + ", dims(s.hidden, kv_heads * d));
    detail += fmt::format("o {} ({}{}{})", dims(z.heads * d, s.hidden),
                          sliding ? "sliding" : "global", k_is_v && !shares_kv ? ", k = v" : "",
                          shares_kv ? ", K/V shared from an earlier layer" : "");
    tally.add("attention", q + k + v + o, detail);
    attention_total += q + k + v + o;
    // Gemma4TextMLP: twice as wide on KV-sharing layers with use_double_wide_mlp.
    std::int64_t ffn = z.ffn * (z.double_wide && shares_kv && z.kv_shared > 0 ? 2 : 1);
    std::int64_t mlp = gated_mlp(s.hidden, ffn);
    mlp_total += mlp;
    tally.add(z.experts > 0 ? "shared experts" : "dense MLP", mlp,
              fmt::format("gate+up {} and down {} (GeGLU{})", dims(s.hidden, 2 * ffn),
                          dims(ffn, s.hidden), z.experts > 0 ? ", the dense MLP" : ""));
    if (z.experts > 0) {
      tally.add("routed experts", z.top_k * gated_mlp(s.hidden, z.expert_ffn),
                fmt::format("top-{} of {} experts, each gate+up {} and down {}", z.top_k, z.experts,
                            dims(s.hidden, 2 * z.expert_ffn), dims(z.expert_ffn, s.hidden)));
      tally.add("router", s.hidden * z.experts, dims(s.hidden, z.experts));
    }
    if (z.ple > 0) {
      tally.add("per-layer inputs", 2 * s.hidden * z.ple,
                fmt::format("per_layer_input_gate {} + per_layer_projection {}",
                            dims(s.hidden, z.ple), dims(z.ple, s.hidden)));
    }
  }
  std::int64_t ple_projection = s.hidden * s.layers * z.ple;
  if (z.ple > 0) {
    tally.add("PLE projection", ple_projection,
              fmt::format("per_layer_model_projection {}", dims(s.hidden, s.layers * z.ple)));
  }
  tally.add("output layer", s.vocab * s.hidden,
            fmt::format("{}{}", dims(s.hidden, s.vocab), z.tied ? " (tied to the embedding)" : ""));

  FamilyModel model;
  ActiveParamCount& count = model.count;
  count.model_type = c.model_type();
  count.components = tally.take();
  std::optional<std::int64_t> total = sum_components(count.components, c, problems);
  if (!total) return std::nullopt;
  count.active_params = *total;
  count.left_out = {"input embedding", "norms (four RMSNorms a layer and the q/k norms)",
                    c.has("final_logit_softcapping")
                        ? "final-logit soft-capping and layer scalars (scalars)"
                        : "layer scalars (scalars)"};
  if (z.ple > 0) count.left_out.push_back("the per-layer embedding table (a lookup)");
  if (z.experts > 0) count.left_out.push_back("router scale vectors");
  if (z.biases) count.left_out.push_back("biases");

  // The planner holds one size per kind of layer part: sizes that differ between sliding,
  // global and KV-sharing layers are averaged over the layers (rounded down), and the PLE
  // matrices ride with the MLP.
  model.shape = shape_base(count, s, z.tied);
  ModelShape& shape = model.shape;
  shape.attention_heads = static_cast<int>(z.heads);
  // TP must divide the KV heads of every layer kind.
  shape.kv_heads = static_cast<int>(z.global_kv_heads > 0 ? std::gcd(z.kv_heads, z.global_kv_heads)
                                                          : z.kv_heads);
  shape.head_dim = static_cast<int>(z.head_dim);
  shape.attention_layers = static_cast<int>(s.layers);
  shape.attention_params = attention_total / s.layers;
  shape.sliding_window_layers = static_cast<int>(sliding_count);
  shape.sliding_window = static_cast<int>(z.window);
  shape.gated_mlp = true;
  std::int64_t mlp_per_layer =
      (mlp_total + 2 * s.hidden * z.ple * s.layers + ple_projection) / s.layers;
  if (z.experts > 0) {
    shape.moe_layers = static_cast<int>(s.layers);
    shape.experts = static_cast<int>(z.experts);
    shape.experts_per_token = static_cast<int>(z.top_k);
    shape.expert_ffn_hidden_size = static_cast<int>(z.expert_ffn);
    shape.expert_params = gated_mlp(s.hidden, z.expert_ffn);
    shape.shared_expert_ffn_hidden_size = static_cast<int>(z.ffn);
    shape.shared_expert_params = mlp_per_layer;
    shape.router_params = s.hidden * z.experts;
  } else {
    shape.dense_mlp_layers = static_cast<int>(s.layers);
    shape.dense_ffn_hidden_size = static_cast<int>(z.ffn);
    shape.dense_mlp_params = mlp_per_layer;
  }
  // The PLE table is an input embedding too (a lookup per token and layer).
  shape.embedding_params += z.ple_vocab * s.layers * z.ple;  // the per-layer embedding table
  return model;
}

}  // namespace openrecipes
