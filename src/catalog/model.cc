#include "catalog/model.h"

#include "catalog/yaml_fields.h"

namespace openrecipes {
namespace {

int as_int(const YamlNode& node, std::string_view key, int fallback = 0) {
  return static_cast<int>(field_int(node, key, fallback));
}

Architecture architecture_from_yaml(const YamlNode& node) {
  Architecture a;
  a.kind = field_string(node, "kind");
  a.layers = as_int(node, "layers");
  a.hidden_size = as_int(node, "hidden_size");
  a.attention_heads = as_int(node, "attention_heads");
  a.head_dim = as_int(node, "head_dim");
  a.kv_heads = as_int(node, "kv_heads");
  a.attention_output_gate = field_bool(node, "attention_output_gate");
  a.full_attention_interval = as_int(node, "full_attention_interval", 1);
  if (const YamlNode* linear = field_mapping(node, "linear_attention")) {
    a.linear_attention.kind = field_string(*linear, "kind");
    a.linear_attention.key_heads = as_int(*linear, "key_heads");
    a.linear_attention.value_heads = as_int(*linear, "value_heads");
    a.linear_attention.key_head_dim = as_int(*linear, "key_head_dim");
    a.linear_attention.value_head_dim = as_int(*linear, "value_head_dim");
    a.linear_attention.conv_kernel = as_int(*linear, "conv_kernel");
  }
  a.experts = as_int(node, "experts");
  a.experts_per_token = as_int(node, "experts_per_token");
  a.expert_ffn_hidden_size = as_int(node, "expert_ffn_hidden_size");
  a.shared_expert_ffn_hidden_size = as_int(node, "shared_expert_ffn_hidden_size");
  a.ffn_hidden_size = as_int(node, "ffn_hidden_size");
  a.vocab_size = field_int(node, "vocab_size");
  a.tied_embeddings = field_bool(node, "tied_embeddings");
  a.attention = field_string(node, "attention");
  a.mtp_layers = as_int(node, "mtp_layers");
  return a;
}

}  // namespace

std::vector<Model> models_from_yaml(const YamlNode& root) {
  std::vector<Model> models;
  const YamlNode* list = root.find("models");
  if (!list) return models;
  for (const YamlNode& item : list->items) {
    Model m;
    m.name = field_string(item, "name");
    m.slug = field_string(item, "slug");
    m.family = field_string(item, "family");
    m.hf_repo = field_string(item, "hf_repo");
    m.revision = field_string(item, "revision");
    if (const YamlNode* arch = field_mapping(item, "architecture")) {
      m.architecture = architecture_from_yaml(*arch);
    }
    m.active_params = field_int(item, "active_params");
    m.tokenizer = field_string(item, "tokenizer");
    m.loss_mask = field_string(item, "loss_mask");
    m.notes = field_string(item, "notes");
    models.push_back(std::move(m));
  }
  return models;
}

}  // namespace openrecipes
