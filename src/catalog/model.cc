#include "catalog/model.h"

#include "base/yaml_fields.h"

namespace openrecipes {
namespace {

Architecture architecture_from_yaml(const YamlNode& node) {
  Architecture a;
  a.kind = field_string(node, "kind");
  a.layers = field_int32(node, "layers");
  a.hidden_size = field_int32(node, "hidden_size");
  a.attention_heads = field_int32(node, "attention_heads");
  a.head_dim = field_int32(node, "head_dim");
  a.kv_heads = field_int32(node, "kv_heads");
  a.attention_output_gate = field_bool(node, "attention_output_gate");
  a.full_attention_interval = field_int32(node, "full_attention_interval", 1);
  if (const YamlNode* linear = field_mapping(node, "linear_attention")) {
    a.linear_attention.kind = field_string(*linear, "kind");
    a.linear_attention.key_heads = field_int32(*linear, "key_heads");
    a.linear_attention.value_heads = field_int32(*linear, "value_heads");
    a.linear_attention.key_head_dim = field_int32(*linear, "key_head_dim");
    a.linear_attention.value_head_dim = field_int32(*linear, "value_head_dim");
    a.linear_attention.conv_kernel = field_int32(*linear, "conv_kernel");
  }
  a.experts = field_int32(node, "experts");
  a.experts_per_token = field_int32(node, "experts_per_token");
  a.expert_ffn_hidden_size = field_int32(node, "expert_ffn_hidden_size");
  a.shared_expert_ffn_hidden_size = field_int32(node, "shared_expert_ffn_hidden_size");
  a.ffn_hidden_size = field_int32(node, "ffn_hidden_size");
  a.vocab_size = field_int(node, "vocab_size");
  a.tied_embeddings = field_bool(node, "tied_embeddings");
  a.attention = field_string(node, "attention");
  a.mtp_layers = field_int32(node, "mtp_layers");
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
    m.tokenizer = field_string(item, "tokenizer");
    m.loss_mask = field_string(item, "loss_mask");
    m.notes = field_string(item, "notes");
    models.push_back(std::move(m));
  }
  return models;
}

}  // namespace openrecipes
