#include "params/family_registry.h"

#include <map>

#include "params/family_dsa.h"

namespace openrecipes {
namespace {

// model_type -> reader. Keep sorted; one line per model_type.
const std::map<std::string, FamilyReader>& readers() {
  static const std::map<std::string, FamilyReader> kReaders = {
      {"deepseek_v32", read_sparse_attention_model},
      {"glm_moe_dsa", read_sparse_attention_model},
  };
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
