// The cross-field rules of a recipe (listed in schema/recipe.schema.yaml, x-cross-field-rules).
// Each group recomputes its figures from src/figures and reports disagreements as Problems.
#pragma once

#include <string>
#include <string_view>

#include "base/problem.h"
#include "base/yaml_document.h"
#include "catalog/catalog.h"
#include "catalog/recipe.h"

namespace openrecipes {

/// A recipe file that passed its schema check. Named apart from catalog/recipe_file.h's
/// RecipeFile: two types of one name in one namespace break the one-definition rule (the linker
/// keeps one inline destructor for both; ASan's build of `openrecipes validate` overflowed).
struct CheckedRecipeFile {
  std::string display_path;  ///< as the user named it; used in problems
  std::string catalog_path;  ///< relative to the catalog root (`recipes/...`); empty when outside
  YamlDocument document;
  Recipe recipe;
};

/// What every rule needs: the catalog, the file, and where to put problems.
class RuleContext {
 public:
  RuleContext(const Catalog& catalog_in, const CheckedRecipeFile& file_in, Problems& problems)
      : catalog(catalog_in), file(file_in), recipe(file_in.recipe), problems_(problems) {}

  /// Adds a problem at the position of `field` (or its nearest present ancestor).
  void report(const std::string& rule, const std::string& field, std::string message,
              std::string expected = "", std::string found = "") const;
  /// Adds a problem at an explicit position.
  void report_at(SourcePosition position, const std::string& rule, const std::string& field,
                 std::string message, std::string expected = "", std::string found = "") const;
  /// Adds a problem as given (one in another file than the recipe, such as a patch).
  void add(Problem problem) const;

  const Catalog& catalog;
  const CheckedRecipeFile& file;
  const Recipe& recipe;

 private:
  Problems& problems_;
};

/// Whether `text` is a file name's variant as the `path` rule takes it after `<handle>-<layout>-`:
/// lowercase letters and digits in words joined by single '-' ([a-z0-9]+(-[a-z0-9]+)*).
bool is_recipe_variant(std::string_view text);

/// path, catalog.model, catalog.gpu, catalog.active_params, patches, status, dates.
void check_catalog_rules(const RuleContext& context);
/// gpu.per_node, mesh.world, layout.dp, layout.label, mesh.ep, mesh.pp, mesh.max_tokens,
/// mesh.batch.
void check_mesh_rules(const RuleContext& context);
/// figures.cost, figures.mfu, figures.window, figures.window_tokens, figures.gpu_hours,
/// figures.step_times, workload.rows.
void check_figure_rules(const RuleContext& context);
/// correctness.losses: the stated per-step losses give the stated convergence figures.
void check_convergence_rules(const RuleContext& context);
/// run.layout: the `run` command agrees with the layout.
void check_run_rules(const RuleContext& context);
/// protocol.deviation: result.protocol_deviation is stated exactly when the run departs from the
/// protocol's steps, scored window or precision (catalog/protocol.h).
void check_deviation(const RuleContext& context);

/// hygiene.path, hygiene.registry, hygiene.scheduler, hygiene.user, hygiene.address,
/// hygiene.host: what the submission guide asks to leave out (validate/hygiene_scan.h).
void check_hygiene_rules(const RuleContext& context);

/// Runs every rule group above, in order.
void check_recipe_rules(const RuleContext& context);

}  // namespace openrecipes
