// Recipe validation (validate/recipe_validator.h) on any text as a recipe of the real catalog:
// the strict YAML reader, the schema check and, for a recipe that passes it, every cross-field
// rule. The catalog is the repository's own, loaded once.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "catalog/catalog_loader.h"
#include "fuzz_support.h"
#include "validate/recipe_validator.h"

namespace {

const openrecipes::LoadedCatalog* loaded = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  openrecipes::Problems problems;
  static std::optional<openrecipes::LoadedCatalog> catalog =
      openrecipes::load_catalog(openrecipes::fuzz::source_dir(), problems);
  openrecipes::fuzz::check(catalog.has_value(), "the repository's catalog loads", problems);
  loaded = &*catalog;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  RecipeReport report = validate_recipe_text(
      *loaded, "fuzz.yaml", "recipes/gpt-oss-20b/h200/fuzz.yaml", fuzz::as_text(data, size));
  for (const Problem& problem : report.problems) (void)format_problem_line(problem);
  return 0;
}
