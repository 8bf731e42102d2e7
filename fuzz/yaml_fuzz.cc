// The strict YAML reader (base/yaml_document.h) on any bytes: parse_yaml, then every scalar
// resolved (to_json, to_ordered_json) and the position of every recorded field looked up.
#include <cstddef>
#include <cstdint>

#include "base/yaml_document.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  Problems problems;
  std::optional<YamlDocument> document =
      parse_yaml(fuzz::as_text(data, size), "fuzz.yaml", problems);
  // parse_yaml returns nullopt exactly when it found a problem.
  fuzz::check(document.has_value() == problems.empty(), "parse_yaml: nullopt iff problems",
              problems);
  if (!document) return 0;
  (void)to_json(document->root).dump();
  (void)to_ordered_json(document->root).dump();
  (void)describe_found(document->root);
  for (const auto& [field, position] : document->positions) (void)document->position_of(field);
  return 0;
}
