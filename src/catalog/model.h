// A model of the catalog (models.yaml): names, source, architecture facts and shared notes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/yaml_document.h"
#include "params/model_shape.h"

namespace openrecipes {

/// Gated DeltaNet (linear attention) sizes; all zero when the model has none.
struct LinearAttention {
  std::string kind;
  int key_heads = 0;
  int value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;
};

/// Architecture facts from the model's Hugging Face config.json.
struct Architecture {
  std::string kind;  ///< dense, moe or hybrid_moe
  int layers = 0;    ///< transformer layers, MTP layers excluded
  int hidden_size = 0;
  int attention_heads = 0;
  int head_dim = 0;
  int kv_heads = 0;
  bool attention_output_gate = false;
  int full_attention_interval = 1;  ///< every n-th layer is full attention
  LinearAttention linear_attention;
  int experts = 0;  ///< routed experts; 0 for dense
  int experts_per_token = 0;
  int expert_ffn_hidden_size = 0;
  int shared_expert_ffn_hidden_size = 0;
  int ffn_hidden_size = 0;
  std::int64_t vocab_size = 0;
  bool tied_embeddings = false;
  std::string attention;
  int mtp_layers = 0;
};

/// One entry of models.yaml. `index` is its position in the file (for error positions).
struct Model {
  std::string name;  ///< as recipes spell it, e.g. Qwen3.5-122B-A10B
  std::string slug;  ///< folder under recipes/, e.g. qwen3.5-122b-a10b
  std::string family;
  std::string hf_repo;
  std::string revision;
  Architecture architecture;
  std::int64_t active_params = 0;  ///< N, counted from models/<slug>/config.json when loaded
  ModelShape shape;  ///< sizes from models/<slug>/config.json when loaded (the planner's input)
  std::string tokenizer;
  std::string loss_mask;
  std::string notes;
};

/// Reads models from models.yaml's root node (already checked against models.schema.yaml).
std::vector<Model> models_from_yaml(const YamlNode& root);

}  // namespace openrecipes
