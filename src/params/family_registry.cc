#include "params/family_registry.h"

#include <map>

#include "params/family_exaone4.h"
#include "params/family_olmo2.h"
#include "params/family_olmo3.h"
#include "params/family_olmoe.h"
#include "params/family_phi3.h"

namespace openrecipes {
namespace {

// model_type -> reader. Keep sorted; one line per model_type.
const std::map<std::string, FamilyReader>& readers() {
  static const std::map<std::string, FamilyReader> kReaders = {
      {"exaone4", read_exaone4}, {"olmo2", read_olmo2}, {"olmo3", read_olmo3},
      {"olmoe", read_olmoe},     {"phi3", read_phi3},
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
