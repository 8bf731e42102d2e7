#include "params/param_blocks.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>

namespace openrecipes {

std::string dims(std::int64_t rows, std::int64_t columns) {
  return fmt::format("{}x{}", rows, columns);
}

void Tally::add(const std::string& name, std::int64_t per_layer, const std::string& detail) {
  for (ParamComponent& c : components_) {
    if (c.name == name && c.per_layer == per_layer) {
      ++c.layers;
      c.total += per_layer;
      return;
    }
  }
  components_.push_back({name, 1, per_layer, per_layer, detail});
}

// Biases (Qwen2) and sinks (gpt-oss) are left out.
BlockParams gqa(const HfConfig& c, const Shape& s, bool output_gate) {
  std::int64_t heads = c.integer("num_attention_heads", 1, 4096);
  std::int64_t kv_heads = c.integer_or("num_key_value_heads", heads, 1, 4096);
  std::int64_t head_dim = c.has("head_dim") ? c.integer("head_dim", 1, 4096)
                                            : s.hidden / std::max<std::int64_t>(heads, 1);
  std::int64_t q = s.hidden * heads * head_dim * (output_gate ? 2 : 1);
  std::int64_t kv = s.hidden * kv_heads * head_dim;
  std::int64_t o = heads * head_dim * s.hidden;
  return {q + 2 * kv + o,
          fmt::format("q {}{} + k {} + v {} + o {}",
                      dims(s.hidden, heads * head_dim * (output_gate ? 2 : 1)),
                      output_gate ? " (with output gate)" : "", dims(s.hidden, kv_heads * head_dim),
                      dims(s.hidden, kv_heads * head_dim), dims(heads * head_dim, s.hidden))};
}

BlockParams mla(const HfConfig& c, const Shape& s) {
  std::int64_t heads = c.integer("num_attention_heads", 1, 4096);
  std::int64_t q_lora = c.integer_or("q_lora_rank", 0, 0);
  std::int64_t kv_lora = c.integer("kv_lora_rank");
  std::int64_t nope = c.integer("qk_nope_head_dim", 1, 4096);
  std::int64_t rope = c.integer("qk_rope_head_dim", 1, 4096);
  std::int64_t v = c.integer("v_head_dim", 1, 4096);
  std::int64_t q_out = heads * (nope + rope);
  std::int64_t q = q_lora > 0 ? s.hidden * q_lora + q_lora * q_out : s.hidden * q_out;
  std::int64_t kv_a = s.hidden * (kv_lora + rope);
  std::int64_t kv_b = kv_lora * heads * (nope + v);
  std::int64_t o = heads * v * s.hidden;
  std::string q_detail =
      q_lora > 0 ? fmt::format("q_a {} + q_b {}", dims(s.hidden, q_lora), dims(q_lora, q_out))
                 : fmt::format("q {}", dims(s.hidden, q_out));
  return {q + kv_a + kv_b + o,
          fmt::format("{} + kv_a {} + kv_b {} + o {}", q_detail, dims(s.hidden, kv_lora + rope),
                      dims(kv_lora, heads * (nope + v)), dims(heads * v, s.hidden))};
}

BlockParams gated_deltanet(const HfConfig& c, const Shape& s) {
  std::int64_t key_heads = c.integer("linear_num_key_heads", 1, 4096);
  std::int64_t value_heads = c.integer("linear_num_value_heads", 1, 4096);
  std::int64_t key_dim = key_heads * c.integer("linear_key_head_dim", 1, 4096);
  std::int64_t value_dim = value_heads * c.integer("linear_value_head_dim", 1, 4096);
  std::int64_t kernel = c.integer("linear_conv_kernel_dim", 1, 64);
  std::int64_t channels = 2 * key_dim + value_dim;
  std::int64_t total = s.hidden * channels + s.hidden * value_dim + 2 * s.hidden * value_heads +
                       value_dim * s.hidden + channels * kernel;
  return {total,
          fmt::format("qkv {} + z {} + b {} + a {} + out {} + conv {}x{}", dims(s.hidden, channels),
                      dims(s.hidden, value_dim), dims(s.hidden, value_heads),
                      dims(s.hidden, value_heads), dims(value_dim, s.hidden), channels, kernel)};
}

ModelShape shape_base(const ActiveParamCount& count, const Shape& s, bool tied) {
  ModelShape shape;
  shape.model_type = count.model_type;
  shape.active_params = count.active_params;
  shape.layers = static_cast<int>(s.layers);
  shape.hidden_size = static_cast<int>(s.hidden);
  shape.vocab_size = s.vocab;
  shape.tied_embeddings = tied;
  shape.embedding_params = s.vocab * s.hidden;
  shape.output_params = s.vocab * s.hidden;
  return shape;
}

std::int64_t gated_mlp(std::int64_t hidden, std::int64_t ffn) { return 3 * hidden * ffn; }

std::optional<std::int64_t> sum_components(const std::vector<ParamComponent>& components,
                                           const HfConfig& c, Problems& problems) {
  __int128 total = 0;
  for (const ParamComponent& component : components) {
    total += static_cast<__int128>(component.layers) * component.per_layer;
    if (component.per_layer < 0 || total > static_cast<__int128>(INT64_MAX)) {
      problems.push_back({c.file(),
                          {1, 1},
                          "",
                          "config",
                          "the sizes give more parameters than can be counted",
                          "a real model's sizes",
                          "N above 9.2e18"});
      return std::nullopt;
    }
  }
  return static_cast<std::int64_t>(total);
}

std::string mtp_layers_left_out(std::int64_t layers) {
  return fmt::format("{} multi-token-prediction layer{}", layers, layers == 1 ? "" : "s");
}

}  // namespace openrecipes
