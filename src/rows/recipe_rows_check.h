// `openrecipes rows verify --recipe`: each figure a recipe's `workload` states about its rows,
// checked against the figures recomputed from the rows file.
#pragma once

#include <string>
#include <vector>

#include "base/problem.h"
#include "base/yaml_document.h"
#include "catalog/recipe.h"
#include "rows/rows_file.h"

namespace openrecipes {

/// The outcome of comparing a recipe with a rows file.
struct RecipeRowsCheck {
  /// One per disagreeing field, at the recipe field's position: expected is the figure
  /// recomputed from the rows file, found is what the recipe states. Rule ids `rows.<field>`.
  Problems problems;
  /// Fields the recipe states that could not be checked, with why (e.g. a file without build
  /// metadata cannot confirm the seed).
  std::vector<std::string> unchecked;
  /// Fields that matched.
  std::vector<std::string> matched;
};

/// Compares `recipe` (parsed from `document`, schema-checked) with `rows` (read from
/// `rows_path`): rows, row tokens (build and workload), padding, supervised ratio (to the 3
/// decimals recipes state), rows_sha256, parquet_sha256 and bytes, and, from the file's build
/// metadata, tokenizer.json sha256, loss mask, seed and name.
RecipeRowsCheck check_rows_against_recipe(const RowsFileSummary& rows, const YamlDocument& document,
                                          const Recipe& recipe);

}  // namespace openrecipes
