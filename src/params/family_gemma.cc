#include "params/family_gemma.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "params/layer_list.h"
#include "params/param_blocks.h"

namespace openrecipes {
namespace {

// What a Gemma generation's config class fills in for an absent field, and how it lays out its
// sliding and global layers when the config lists no `layer_types`.
struct GemmaDefaults {
  std::int64_t vocab = 0;
  std::int64_t heads = 8, kv_heads = 4, head_dim = 256;  // both generations' class defaults
  std::int64_t window = 4096;
  bool gemma3 = false;  // Gemma 3: 5 sliding to 1 global (sliding_window_pattern); Gemma 2: 1:1
};

// Which layers slide: `layer_types` when the config lists them, else the generation's pattern.
// An empty result with a problem added (or recorded on `c`) means the list is bad.
std::vector<bool> sliding_layers(const HfConfig& c, const GemmaDefaults& d, std::int64_t layers,
                                 Problems& problems) {
  std::optional<std::vector<std::string>> types =
      read_layer_list(c, "layer_types", layers, {"sliding_attention", "full_attention"}, problems);
  if (!types) return {};
  std::vector<bool> sliding;
  if (!types->empty()) {
    for (const std::string& type : *types) sliding.push_back(type == "sliding_attention");
    return sliding;
  }
  // modeling_gemma2.py: `is_sliding = not bool(layer_idx % 2)`; configuration_gemma3.py: layer i
  // slides when (i + 1) % sliding_window_pattern != 0. Newer Gemma 3 configs name the pattern
  // `_sliding_window_pattern`.
  std::int64_t pattern = 2;
  if (d.gemma3) {
    pattern = c.has("sliding_window_pattern")
                  ? c.integer_or("sliding_window_pattern", 6, 1, 1 << 20)
                  : c.integer_or("_sliding_window_pattern", 6, 1, 1 << 20);
  }
  for (std::int64_t i = 0; i < layers; ++i) sliding.push_back((i + 1) % pattern != 0);
  return sliding;
}

std::optional<FamilyModel> read_gemma(const HfConfig& c, const GemmaDefaults& d,
                                      Problems& problems) {
  auto finish_with_problems = [&]() -> std::optional<FamilyModel> {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  };
  // Sizes every real Gemma config states are required; the rest take the class defaults.
  Shape s{c.integer("hidden_size"), c.integer("num_hidden_layers", 1, 100'000),
          c.integer_or("vocab_size", d.vocab, 1)};
  std::int64_t ffn = c.integer("intermediate_size");
  std::int64_t heads = c.integer_or("num_attention_heads", d.heads, 1, 4096);
  std::int64_t kv_heads = c.integer_or("num_key_value_heads", d.kv_heads, 1, 4096);
  std::int64_t head_dim = c.integer_or("head_dim", d.head_dim, 1, 4096);
  bool tied = c.boolean_or("tie_word_embeddings", true);
  bool biases = c.boolean_or("attention_bias", false);
  if (!c.problems().empty()) return finish_with_problems();

  const std::size_t before = problems.size();
  if (heads % kv_heads != 0) {
    problems.push_back(
        c.problem_at("num_key_value_heads", "key/value heads must divide the attention heads",
                     fmt::format("a divisor of {}", heads), std::to_string(kv_heads)));
  }
  std::vector<bool> sliding = sliding_layers(c, d, s.layers, problems);
  if (problems.size() != before || !c.problems().empty()) return finish_with_problems();
  std::int64_t sliding_count = 0;
  for (bool b : sliding) sliding_count += b ? 1 : 0;
  std::int64_t window =
      sliding_count > 0 ? c.integer_or("sliding_window", d.window, 1, 1 << 24) : 0;
  if (!c.problems().empty()) return finish_with_problems();

  // One layer: q, k, v, o (sliding and global layers have the same matrices) and the GeGLU MLP
  // (gate_proj, up_proj, down_proj); modeling_gemma2.py / modeling_gemma3.py.
  std::int64_t q_width = heads * head_dim, kv_width = kv_heads * head_dim;
  std::int64_t attention = s.hidden * q_width + 2 * s.hidden * kv_width + q_width * s.hidden;
  std::string attention_detail =
      fmt::format("q {} + k {} + v {} + o {}", dims(s.hidden, q_width), dims(s.hidden, kv_width),
                  dims(s.hidden, kv_width), dims(q_width, s.hidden));
  std::int64_t mlp = gated_mlp(s.hidden, ffn);
  std::string mlp_detail =
      fmt::format("gate+up {} and down {} (GeGLU)", dims(s.hidden, 2 * ffn), dims(ffn, s.hidden));
  Tally tally;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    tally.add("attention", attention, attention_detail);
    tally.add("dense MLP", mlp, mlp_detail);
  }
  // The output layer multiplies every token once, tied to the embedding or not.
  tally.add("output layer", s.vocab * s.hidden,
            fmt::format("{}{}", dims(s.hidden, s.vocab), tied ? " (tied to the embedding)" : ""));

  FamilyModel model;
  ActiveParamCount& count = model.count;
  count.model_type = c.model_type();
  count.components = tally.take();
  std::optional<std::int64_t> total = sum_components(count.components, c, problems);
  if (!total) return std::nullopt;
  count.active_params = *total;
  count.left_out = {"input embedding", d.gemma3 ? "norms (four RMSNorms a layer and the q/k norms)"
                                                : "norms (four RMSNorms a layer)"};
  // Gemma2Config soft-caps by default (50 and 30); Gemma 3 only when its config says so.
  if (!d.gemma3 || c.has("attn_logit_softcapping") || c.has("final_logit_softcapping"))
    count.left_out.push_back("attention and final-logit soft-capping (scalars)");
  if (biases) count.left_out.push_back("biases");

  model.shape = shape_base(count, s, tied);
  ModelShape& shape = model.shape;
  shape.attention_heads = static_cast<int>(heads);
  shape.kv_heads = static_cast<int>(kv_heads);
  shape.head_dim = static_cast<int>(head_dim);
  shape.attention_layers = static_cast<int>(s.layers);
  shape.sliding_window_layers = static_cast<int>(sliding_count);
  shape.sliding_window = static_cast<int>(window);
  shape.gated_mlp = true;
  shape.dense_mlp_layers = static_cast<int>(s.layers);
  shape.dense_ffn_hidden_size = static_cast<int>(ffn);
  shape.attention_params = attention;
  shape.dense_mlp_params = mlp;
  return model;
}

}  // namespace

std::optional<FamilyModel> read_gemma2(const HfConfig& config, Problems& problems) {
  GemmaDefaults defaults;
  defaults.vocab = 256'000;  // configuration_gemma2.py
  return read_gemma(config, defaults, problems);
}

std::optional<FamilyModel> read_gemma3(const HfConfig& config, Problems& problems) {
  GemmaDefaults defaults;
  defaults.vocab = 262'208;  // configuration_gemma3.py
  defaults.gemma3 = true;
  return read_gemma(config, defaults, problems);
}

}  // namespace openrecipes
