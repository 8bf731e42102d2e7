#include "params/family_registry.h"

#include <map>

#include "params/family_bailing_moe.h"
#include "params/family_dsa.h"
#include "params/family_ernie4_5_moe.h"
#include "params/family_exaone4.h"
#include "params/family_exaone_moe.h"
#include "params/family_falcon_h1.h"
#include "params/family_gemma.h"
#include "params/family_gemma4.h"
#include "params/family_glm4_moe.h"
#include "params/family_hy_v3.h"
#include "params/family_llama4.h"
#include "params/family_nemotron_h.h"
#include "params/family_olmo2.h"
#include "params/family_olmo3.h"
#include "params/family_olmoe.h"
#include "params/family_phi3.h"

namespace openrecipes {
namespace {

// model_type -> reader. Keep sorted; one line per model_type.
const std::map<std::string, FamilyReader>& readers() {
  // clang-format off
  static const std::map<std::string, FamilyReader> kReaders = {
      {"bailing_moe", &read_bailing_moe},
      {"bailing_moe_v2", &read_bailing_moe},
      {"deepseek_v32", &read_sparse_attention_model},
      {"ernie4_5_moe", &read_ernie4_5_moe},
      {"exaone4", &read_exaone4},
      {"exaone4_5_text", &read_exaone4},
      {"exaone_moe", &read_exaone_moe},
      {"falcon_h1", &read_falcon_h1},
      {"gemma2", &read_gemma2},
      {"gemma3", &read_gemma3},
      {"gemma3_text", &read_gemma3},
      {"gemma4", &read_gemma4},
      {"gemma4_text", &read_gemma4},
      {"glm4_moe", &read_glm4_moe},
      // GLM-4.5V's language model is GLM-4.5-Air's decoder under multimodal rotary positions
      // (transformers models/glm4v_moe/modeling_glm4v_moe.py, Glm4vMoeTextModel).
      {"glm4v_moe_text", &read_glm4_moe},
      {"glm_moe_dsa", &read_sparse_attention_model},
      {"hy_v3", &read_hy_v3},
      {"llama4", &read_llama4},
      {"llama4_text", &read_llama4},
      {"nemotron_h", &read_nemotron_h},
      {"olmo2", &read_olmo2},
      {"olmo3", &read_olmo3},
      {"olmoe", &read_olmoe},
      {"phi3", &read_phi3},
  };
  // clang-format on
  return kReaders;
}

}  // namespace

FamilyReader family_reader(const std::string& model_type) {
  auto it = readers().find(model_type);
  return it == readers().end() ? nullptr : it->second;
}

std::vector<std::string> family_reader_types() {
  std::vector<std::string> types;
  for (const auto& [type, reader] : readers()) types.push_back(type);
  return types;
}

}  // namespace openrecipes
