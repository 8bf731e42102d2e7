#include "params/model_shape.h"

#include <algorithm>

#include "params/family_registry.h"

namespace openrecipes {
namespace {

const ParamComponent* component(const ActiveParamCount& count, const std::string& name) {
  for (const ParamComponent& c : count.components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace

std::int64_t ModelShape::total_params() const {
  std::int64_t total = embedding_params + (tied_embeddings ? 0 : output_params);
  total += static_cast<std::int64_t>(attention_layers) * attention_params;
  total += static_cast<std::int64_t>(linear_attention_layers) * linear_attention_params;
  total += static_cast<std::int64_t>(mamba_layers) * mamba_params;
  total += static_cast<std::int64_t>(attention_layers) * indexer_params;
  total += static_cast<std::int64_t>(dense_mlp_layers) * dense_mlp_params;
  total +=
      static_cast<std::int64_t>(moe_layers) *
      (static_cast<std::int64_t>(experts) * expert_params + shared_expert_params + router_params);
  return total;
}

double ModelShape::dense_params_per_layer() const {
  if (layers == 0) return 0;
  double sum =
      static_cast<double>(attention_layers) * static_cast<double>(attention_params) +
      static_cast<double>(linear_attention_layers) * static_cast<double>(linear_attention_params) +
      static_cast<double>(mamba_layers) * static_cast<double>(mamba_params) +
      static_cast<double>(attention_layers) * static_cast<double>(indexer_params) +
      static_cast<double>(dense_mlp_layers) * static_cast<double>(dense_mlp_params) +
      static_cast<double>(moe_layers) * static_cast<double>(shared_expert_params + router_params);
  return sum / layers;
}

double ModelShape::expert_params_per_layer() const {
  if (layers == 0) return 0;
  return static_cast<double>(moe_layers) * experts * static_cast<double>(expert_params) / layers;
}

void read_mla_attention(const HfConfig& c, ModelShape& s) {
  s.attention_heads = static_cast<int>(c.integer("num_attention_heads", 1, 4096));
  s.kv_heads = s.attention_heads;
  const std::int64_t rope = c.integer("qk_rope_head_dim", 1, 4096);
  s.head_dim = static_cast<int>(c.integer("qk_nope_head_dim", 1, 4096) + rope);
  s.mla_rope_head_dim = static_cast<int>(rope);
  s.mla_v_head_dim = static_cast<int>(c.integer("v_head_dim", 1, 4096));
  s.mla_q_lora_rank = static_cast<int>(c.integer_or("q_lora_rank", 0, 0, 1 << 20));
  s.mla_kv_lora_rank = static_cast<int>(c.integer("kv_lora_rank", 1, 1 << 20));
}

std::optional<ModelShape> model_shape_from_config(const HfConfig& c, const std::string& name,
                                                  Problems& problems) {
  if (FamilyReader reader = family_reader(c.model_type_if_valid())) {
    std::optional<FamilyModel> model = reader(c, problems);
    if (!model) return std::nullopt;
    model->shape.name = name.empty() ? model->shape.model_type : name;
    return std::move(model->shape);
  }
  std::optional<ActiveParamCount> count = count_active_params(c, problems);
  if (!count) return std::nullopt;
  ModelShape s;
  s.model_type = count->model_type;
  s.name = name.empty() ? count->model_type : name;
  s.active_params = count->active_params;
  s.layers = static_cast<int>(c.integer("num_hidden_layers", 1, 100'000));
  s.hidden_size = static_cast<int>(c.integer("hidden_size"));
  s.vocab_size = c.integer("vocab_size");
  s.tied_embeddings = c.boolean_or("tie_word_embeddings", false);
  // DeepSeek-V2/V3 and Kimi K2 (DeepSeek-V3's architecture under a model_type of its own).
  bool deepseek = s.model_type.rfind("deepseek", 0) == 0 || s.model_type == "kimi_k2";
  s.mtp_layers = static_cast<int>(
      c.integer_or(deepseek ? "num_nextn_predict_layers" : "mtp_num_hidden_layers", 0, 0));

  s.attention_heads = static_cast<int>(c.integer("num_attention_heads", 1, 4096));
  if (deepseek) {
    read_mla_attention(c, s);
  } else {
    s.kv_heads = static_cast<int>(c.integer_or("num_key_value_heads", s.attention_heads, 1, 4096));
    s.head_dim =
        static_cast<int>(c.has("head_dim") ? c.integer("head_dim", 1, 4096)
                                           : s.hidden_size / std::max(s.attention_heads, 1));
  }
  for (const std::string& type : c.strings("layer_types")) {
    if (type == "sliding_attention") ++s.sliding_window_layers;
  }
  if (s.sliding_window_layers > 0)
    s.sliding_window = static_cast<int>(c.integer("sliding_window", 1, 1 << 24));

  if (const ParamComponent* a = component(*count, "attention")) {
    s.attention_layers = static_cast<int>(a->layers);
    s.attention_params = a->per_layer;
  }
  if (const ParamComponent* a = component(*count, "linear attention")) {
    s.linear_attention_layers = static_cast<int>(a->layers);
    s.linear_attention_params = a->per_layer;
    s.linear_key_heads = static_cast<int>(c.integer("linear_num_key_heads", 1, 4096));
    s.linear_value_heads = static_cast<int>(c.integer("linear_num_value_heads", 1, 4096));
    s.linear_key_head_dim = static_cast<int>(c.integer("linear_key_head_dim", 1, 4096));
    s.linear_value_head_dim = static_cast<int>(c.integer("linear_value_head_dim", 1, 4096));
  }
  if (const ParamComponent* d = component(*count, "dense MLP")) {
    s.dense_mlp_layers = static_cast<int>(d->layers);
    s.dense_mlp_params = d->per_layer;
    s.dense_ffn_hidden_size =
        static_cast<int>(d->per_layer / (3 * static_cast<std::int64_t>(s.hidden_size)));
  }
  if (const ParamComponent* r = component(*count, "routed experts")) {
    s.moe_layers = static_cast<int>(r->layers);
    s.experts_per_token =
        static_cast<int>(c.has("num_experts_per_tok") ? c.integer("num_experts_per_tok", 1, 65536)
                                                      : c.integer("experts_per_token", 1, 65536));
    s.expert_params = r->per_layer / s.experts_per_token;
    s.expert_ffn_hidden_size =
        static_cast<int>(s.expert_params / (3 * static_cast<std::int64_t>(s.hidden_size)));
    s.experts =
        static_cast<int>(c.has("num_local_experts")  ? c.integer("num_local_experts", 1, 65536)
                         : c.has("n_routed_experts") ? c.integer("n_routed_experts", 1, 65536)
                                                     : c.integer("num_experts", 1, 65536));
  }
  if (const ParamComponent* sh = component(*count, "shared experts")) {
    s.shared_expert_params = sh->per_layer;
    s.shared_expert_ffn_hidden_size =
        static_cast<int>(sh->per_layer / (3 * static_cast<std::int64_t>(s.hidden_size)));
  }
  if (const ParamComponent* r = component(*count, "router")) s.router_params = r->per_layer;
  s.embedding_params = s.vocab_size * s.hidden_size;
  s.output_params = s.vocab_size * s.hidden_size;
  if (!c.problems().empty()) {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  }
  return s;
}

std::optional<ModelShape> model_shape_from_file(const std::string& path, const std::string& name,
                                                Problems& problems) {
  std::optional<HfConfig> config = HfConfig::read_file(path, problems);
  if (!config) return std::nullopt;
  return model_shape_from_config(*config, name, problems);
}

}  // namespace openrecipes
