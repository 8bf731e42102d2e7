#include "params/active_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <map>
#include <set>

#include "params/family_registry.h"
#include "params/layer_list.h"
#include "params/param_blocks.h"

namespace openrecipes {
namespace {

enum class Family { kDense, kMixtral, kQwenMoe, kGptOss, kDeepSeek, kHybrid };

const std::map<std::string, Family>& families() {
  static const std::map<std::string, Family> kFamilies = {
      {"llama", Family::kDense},
      {"mistral", Family::kDense},
      // Ministral 3 (Mistral 3's and Devstral 2's text model): Mistral's decoder with an explicit
      // head_dim (transformers models/ministral3/modeling_ministral3.py); its Llama-4-style
      // attention temperature has no weights.
      {"ministral3", Family::kDense},
      {"qwen2", Family::kDense},
      // Qwen2.5-VL's language model: Qwen2's decoder with multimodal rotary positions, which have
      // no weights (transformers models/qwen2_5_vl/modeling_qwen2_5_vl.py). Older configs hold
      // its sizes at the top level under the wrapper's type, newer ones in a text_config.
      {"qwen2_5_vl", Family::kDense},
      {"qwen2_5_vl_text", Family::kDense},
      {"qwen3", Family::kDense},
      // Qwen3-VL's language models (models/qwen3_vl/modeling_qwen3_vl.py,
      // models/qwen3_vl_moe/modeling_qwen3_vl_moe.py): Qwen3's and Qwen3-MoE's decoder layers
      // (q/k norms; top-k experts and a router, no shared expert) under multimodal rotary
      // positions; the vision encoder's features are added to the hidden states (DeepStack), no
      // matrix of the text model.
      {"qwen3_vl_text", Family::kDense},
      {"mixtral", Family::kMixtral},
      {"qwen2_moe", Family::kQwenMoe},
      {"qwen3_moe", Family::kQwenMoe},
      {"qwen3_vl_moe_text", Family::kQwenMoe},
      {"gpt_oss", Family::kGptOss},
      {"deepseek_v2", Family::kDeepSeek},
      {"deepseek_v3", Family::kDeepSeek},
      // Kimi K2: DeepSeek-V3's architecture and modeling code (its config.json names
      // DeepseekV3ForCausalLM and modeling_deepseek.py) under a model_type of its own.
      {"kimi_k2", Family::kDeepSeek},
      {"qwen3_next", Family::kHybrid},
      {"qwen3_5", Family::kHybrid},
      {"qwen3_5_text", Family::kHybrid},
      {"qwen3_5_moe", Family::kHybrid},
      {"qwen3_5_moe_text", Family::kHybrid},
  };
  return kFamilies;
}

// The MLP side of a config: the experts and which layers are dense.
struct MlpShape {
  std::int64_t experts = 0, top_k = 0, expert_ffn = 0, shared_ffn = 0;
  bool shared_gate = false;
  std::int64_t dense_ffn = 0, first_dense = 0, moe_frequency = 1, sparse_step = 1;
  std::set<std::int64_t> mlp_only;
};

// What a config says about its layers: sizes, which are linear attention and which are MoE.
struct LayerPlan {
  Family family = Family::kDense;
  Shape s;
  std::vector<std::string> layer_types;  // empty when the config does not list them
  std::int64_t interval = 1;             // full_attention_interval of a hybrid model
  MlpShape mlp;

  bool is_linear(std::int64_t i) const {
    if (family != Family::kHybrid) return false;
    if (!layer_types.empty()) return layer_types[static_cast<std::size_t>(i)] == "linear_attention";
    return (i + 1) % interval != 0;
  }
  bool is_moe(std::int64_t i) const {
    if (mlp.experts == 0) return false;
    switch (family) {
      case Family::kDeepSeek:
        return i >= mlp.first_dense && i % mlp.moe_frequency == 0;
      case Family::kQwenMoe:
      case Family::kHybrid:
        return !mlp.mlp_only.count(i) && (i + 1) % mlp.sparse_step == 0;
      default:
        return true;
    }
  }
};

// Checks that `layer_types` (read_layer_list's: every layer, known types) has linear attention
// only in a family that has it; returns false with a problem at the first layer that does not.
bool check_linear_attention(const HfConfig& c, const LayerPlan& plan, Problems& problems) {
  const std::vector<std::string>& layer_types = plan.layer_types;
  for (std::size_t i = 0; i < layer_types.size(); ++i) {
    if (layer_types[i] == "linear_attention" && plan.family != Family::kHybrid) {
      problems.push_back(c.problem_at(
          fmt::format("layer_types[{}]", i), "linear attention in a model type without it",
          "full_attention or sliding_attention", "\"linear_attention\""));
      return false;
    }
  }
  return true;
}

// Reads the MLP sizes of a `family` config; bad or missing sizes are recorded on `c`.
MlpShape read_mlp_shape(const HfConfig& c, Family family) {
  MlpShape mlp;
  switch (family) {
    case Family::kDense:
      mlp.dense_ffn = c.integer("intermediate_size");
      break;
    case Family::kMixtral:
      mlp.experts = c.integer("num_local_experts", 1, 65536);
      mlp.top_k = c.integer("num_experts_per_tok", 1, 65536);
      mlp.expert_ffn = c.integer("intermediate_size");
      break;
    case Family::kGptOss:
      mlp.experts = c.integer("num_local_experts", 1, 65536);
      mlp.top_k = c.has("num_experts_per_tok") ? c.integer("num_experts_per_tok", 1, 65536)
                                               : c.integer("experts_per_token", 1, 65536);
      mlp.expert_ffn = c.integer("intermediate_size");
      break;
    case Family::kQwenMoe:
    case Family::kHybrid:
      mlp.experts = c.integer_or("num_experts", 0, 0, 65536);
      if (mlp.experts > 0 || family == Family::kQwenMoe) {
        mlp.experts = c.integer("num_experts", 1, 65536);
        mlp.top_k = c.integer("num_experts_per_tok", 1, 65536);
        mlp.expert_ffn = c.integer("moe_intermediate_size");
        mlp.shared_ffn = c.integer_or("shared_expert_intermediate_size", 0, 0);
        mlp.shared_gate = mlp.shared_ffn > 0;
        mlp.sparse_step = c.integer_or("decoder_sparse_step", 1, 1);
        for (std::int64_t layer : c.integers("mlp_only_layers")) mlp.mlp_only.insert(layer);
      }
      if (mlp.experts == 0 || !mlp.mlp_only.empty() || mlp.sparse_step > 1) {
        mlp.dense_ffn = c.integer("intermediate_size");
      }
      break;
    case Family::kDeepSeek:
      mlp.experts = c.integer("n_routed_experts", 1, 65536);
      mlp.top_k = c.integer("num_experts_per_tok", 1, 65536);
      mlp.expert_ffn = c.integer("moe_intermediate_size");
      mlp.shared_ffn = c.integer_or("n_shared_experts", 0, 0, 64) * mlp.expert_ffn;
      mlp.first_dense = c.integer_or("first_k_dense_replace", 0, 0);
      mlp.moe_frequency = c.integer_or("moe_layer_freq", 1, 1);
      if (mlp.first_dense > 0 || mlp.moe_frequency > 1)
        mlp.dense_ffn = c.integer("intermediate_size");
      break;
  }
  return mlp;
}

// Checks the relations between valid sizes (top-k within the experts, dense and MLP-only layers
// within the model, KV heads dividing the heads); adds a problem for each broken one.
void check_consistency(const HfConfig& c, const LayerPlan& plan, Problems& problems) {
  const MlpShape& mlp = plan.mlp;
  const Shape& s = plan.s;
  auto inconsistent = [&](const std::string& field, const std::string& message,
                          const std::string& expected, std::int64_t found) {
    problems.push_back(c.problem_at(field, message, expected, std::to_string(found)));
  };
  if (mlp.experts > 0 && mlp.top_k > mlp.experts) {
    inconsistent("num_experts_per_tok", "more experts per token than experts",
                 fmt::format("at most {}", mlp.experts), mlp.top_k);
  }
  if (mlp.first_dense > s.layers) {
    inconsistent("first_k_dense_replace", "more dense layers than layers",
                 fmt::format("at most {}", s.layers), mlp.first_dense);
  }
  for (std::int64_t layer : mlp.mlp_only) {
    if (layer < 0 || layer >= s.layers) {
      inconsistent("mlp_only_layers", "a layer index outside the model",
                   fmt::format("0 to {}", s.layers - 1), layer);
    }
  }
  if (plan.family != Family::kDeepSeek) {
    std::int64_t heads = c.integer("num_attention_heads", 1, 4096);
    std::int64_t kv_heads = c.integer_or("num_key_value_heads", heads, 1, 4096);
    if (c.problems().empty() && heads % kv_heads != 0) {
      inconsistent("num_key_value_heads", "key/value heads must divide the attention heads",
                   fmt::format("a divisor of {}", heads), kv_heads);
    }
  }
}

// Adds up one component per kind of layer part (attention, MLP, experts, router) and the output
// layer, in first-seen order.
std::vector<ParamComponent> tally_components(const LayerPlan& plan,
                                             const std::pair<std::int64_t, std::string>& attention,
                                             const std::pair<std::int64_t, std::string>& linear) {
  const Shape& s = plan.s;
  const MlpShape& mlp = plan.mlp;
  Tally tally;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    if (plan.is_linear(i)) {
      tally.add("linear attention", linear.first, linear.second);
    } else {
      tally.add("attention", attention.first, attention.second);
    }
    if (plan.is_moe(i)) {
      tally.add(
          "routed experts", mlp.top_k * gated_mlp(s.hidden, mlp.expert_ffn),
          fmt::format("top-{} of {} experts, each gate+up {} and down {}", mlp.top_k, mlp.experts,
                      dims(s.hidden, 2 * mlp.expert_ffn), dims(mlp.expert_ffn, s.hidden)));
      if (mlp.shared_ffn > 0) {
        tally.add("shared experts",
                  gated_mlp(s.hidden, mlp.shared_ffn) + (mlp.shared_gate ? s.hidden : 0),
                  fmt::format("gate+up {} and down {}{}", dims(s.hidden, 2 * mlp.shared_ffn),
                              dims(mlp.shared_ffn, s.hidden),
                              mlp.shared_gate ? fmt::format(" + gate {}x1", s.hidden) : ""));
      }
      tally.add("router", s.hidden * mlp.experts, fmt::format("{}", dims(s.hidden, mlp.experts)));
    } else {
      tally.add("dense MLP", gated_mlp(s.hidden, mlp.dense_ffn),
                fmt::format("gate+up {} and down {}", dims(s.hidden, 2 * mlp.dense_ffn),
                            dims(mlp.dense_ffn, s.hidden)));
    }
  }
  tally.add("output layer", s.vocab * s.hidden, fmt::format("{}", dims(s.hidden, s.vocab)));
  return tally.take();
}

// What the convention leaves out for a `family` model with `mtp` multi-token-prediction layers.
std::vector<std::string> left_out_of(Family family, std::int64_t mtp) {
  std::vector<std::string> left_out = {"input embedding", "norms", "biases"};
  if (family == Family::kGptOss) left_out.push_back("attention sinks");
  if (family == Family::kHybrid) left_out.push_back("A_log and dt_bias");
  if (mtp > 0) left_out.push_back(mtp_layers_left_out(mtp));
  return left_out;
}

}  // namespace

std::vector<std::string> supported_model_types() {
  std::vector<std::string> types = family_reader_types();
  for (const auto& [name, family] : families()) types.push_back(name);
  std::sort(types.begin(), types.end());
  return types;
}

std::optional<ActiveParamCount> count_active_params(const HfConfig& c, Problems& problems) {
  std::string model_type = c.model_type();
  auto finish_with_problems = [&]() -> std::optional<ActiveParamCount> {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  };
  if (model_type.empty()) return finish_with_problems();
  if (FamilyReader reader = family_reader(model_type)) {
    std::optional<FamilyModel> model = reader(c, problems);
    if (!model) return std::nullopt;
    return std::move(model->count);
  }
  auto family_it = families().find(model_type);
  if (family_it == families().end()) {
    // A multimodal wrapper's type with its text part null: the language model is what is missing.
    std::string null_part = c.null_text_part();
    std::string found = "\"" + model_type + "\"";
    if (!null_part.empty()) found += fmt::format(" (and {} null: no language model)", null_part);
    problems.push_back(
        c.problem_at("model_type", "unsupported model_type",
                     fmt::format("one of {}", fmt::join(supported_model_types(), ", ")), found));
    return std::nullopt;
  }
  LayerPlan plan;
  plan.family = family_it->second;
  const std::int64_t hidden = c.integer("hidden_size");
  // Layers are walked one by one: bound them to what a model can have.
  const std::size_t problems_before_layers = c.problems().size();
  const std::int64_t layers = c.integer("num_hidden_layers", 1, 100'000);
  // A refused layer count says nothing about the length of the list of layer types.
  const bool layers_read = c.problems().size() == problems_before_layers;
  plan.s = Shape{hidden, layers, c.integer("vocab_size")};

  // Which layers are full attention, linear attention, MoE.
  if (layers_read) {
    std::optional<std::vector<std::string>> types =
        read_layer_list(c, "layer_types", layers,
                        {"full_attention", "sliding_attention", "linear_attention"}, problems);
    if (!types) return finish_with_problems();
    plan.layer_types = std::move(*types);
    if (!check_linear_attention(c, plan, problems)) return finish_with_problems();
  } else {
    plan.layer_types = c.strings("layer_types");  // only its type is checked
  }
  plan.interval =
      plan.family == Family::kHybrid ? c.integer_or("full_attention_interval", 4, 1) : 1;
  plan.mlp = read_mlp_shape(c, plan.family);
  if (!c.problems().empty())
    return finish_with_problems();  // sizes first; relations only between valid sizes
  const std::size_t before_consistency = problems.size();
  check_consistency(c, plan, problems);
  if (problems.size() != before_consistency || !c.problems().empty()) return finish_with_problems();

  // One layer's attention and linear attention (when any layer has it).
  const Shape& s = plan.s;
  bool output_gate = plan.family == Family::kHybrid && c.boolean_or("attn_output_gate", true);
  std::int64_t mtp = c.integer_or(
      plan.family == Family::kDeepSeek ? "num_nextn_predict_layers" : "mtp_num_hidden_layers", 0,
      0);
  auto attention = plan.family == Family::kDeepSeek ? mla(c, s) : gqa(c, s, output_gate);
  std::pair<std::int64_t, std::string> linear{0, ""};
  for (std::int64_t i = 0; i < s.layers; ++i) {
    if (plan.is_linear(i)) {
      linear = gated_deltanet(c, s);
      break;
    }
  }
  if (!c.problems().empty()) return finish_with_problems();

  ActiveParamCount result;
  result.model_type = model_type;
  result.components = tally_components(plan, attention, linear);
  std::optional<std::int64_t> total = sum_components(result.components, c, problems);
  if (!total) return std::nullopt;
  result.active_params = *total;
  result.left_out = left_out_of(plan.family, mtp);
  return result;
}

std::optional<ActiveParamCount> count_active_params_of_file(const std::string& path,
                                                            Problems& problems) {
  std::optional<HfConfig> config = HfConfig::read_file(path, problems);
  if (!config) return std::nullopt;
  return count_active_params(*config, problems);
}

}  // namespace openrecipes
