// Builds the whole static site from a checked catalog: pages, stylesheet, script and the recipe
// files themselves. Pure: returns the files; writing them is site_files.h's job.
#pragma once

#include <filesystem>
#include <optional>

#include "base/problem.h"
#include "site/pair_predictions.h"
#include "site/site_files.h"
#include "validate/recipe_validator.h"

namespace openrecipes {

/// Renders every page of the site for the catalog `check` (which must hold no problems) with the
/// templates in `<root>/templates` and the settings in `<root>/site.yaml` (repository_url,
/// branch): the index, a ranked page per (model, GPU type) with recipes (its first page also lists
/// the pair's published measurements), a "Not measured yet" page for every other pair with the
/// planner's suggestions from `predictions` (predict_unmeasured_pairs; an empty one shows none)
/// and its published measurements, every recipe's page and file, and the fixed pages. The output
/// depends on nothing but those inputs: no clock, no environment, sorted iteration, so building
/// twice gives identical bytes. Returns nullopt with problems when the templates or site.yaml are
/// missing or broken, or a template does not render. `check` is taken by value so that each
/// verified recipe's text can move into the site rather than be copied (70 MB in a 10,000-recipe
/// catalog, a seventh of the build's peak memory): pass std::move(check) when done with it.
std::optional<SiteFiles> build_site(CatalogCheck check, const SitePredictions& predictions,
                                    Problems& problems);

}  // namespace openrecipes
