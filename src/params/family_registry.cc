#include "params/family_registry.h"

#include <map>

#include "params/family_falcon_h1.h"
#include "params/family_nemotron_h.h"

namespace openrecipes {
namespace {

// model_type -> reader. Keep sorted; one line per model_type.
const std::map<std::string, FamilyReader>& readers() {
  static const std::map<std::string, FamilyReader> kReaders = {
      {"falcon_h1", &read_falcon_h1},
      {"nemotron_h", &read_nemotron_h},
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
