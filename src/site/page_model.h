// What each page of the site shows, as plain JSON values for the Mustache templates. Every
// figure is formatted here (number_format.h) and every string stays raw: the templates escape.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "catalog/ranking.h"

namespace openrecipes {

/// Where the catalog's files live in the repository, for "view in the repository" links.
struct SiteSettings {
  std::string repository_url;  ///< e.g. https://github.com/<org>/<repo>
  std::string branch;          ///< e.g. main
};

/// Ranked recipes per page of a (model, GPU type): a pair with more is split into pages, so that
/// no page grows with the catalog (about 2.5 KB per recipe: a table row and a short card).
inline constexpr std::size_t kRecipesPerPairPage = 100;

/// How many pages a pair of `ranked` recipes takes (at least 1).
std::size_t pair_page_count(std::size_t ranked);

/// The site path of page `page` (from 1) of the (model, GPU type):
/// `<model slug>/<gpu slug>/index.html` for the first, `.../page-<n>.html` for the others.
std::string pair_page_path(const Model& model, const Gpu& gpu, std::size_t page = 1);

/// The site path of a recipe's own page, its permalink, built from its catalog path
/// `recipes/<model slug>/<gpu slug>/<stem>.yaml`: `<model slug>/<gpu slug>/<stem>.html`, beside
/// its pair's page. (A stem holds its layout, `tp1-...`, so it never reads `index` or `page-N`.)
std::string recipe_page_path(const CatalogRecipe& entry);

/// The index: models grouped by family (sorted), each with its best tokens/s per GPU on every
/// GPU type of gpus.yaml (where there is no verified recipe, a link to the pair's "Not measured
/// yet" page, and no figure). `root` is "" (site top).
nlohmann::json index_page(const Catalog& catalog, const RecipeRanks& ranks);

/// The page of one (model, GPU type), as the committed site shows it
/// (site/qwen3.5-122b-a10b/h200/): ranked table, a short card per recipe (its figures, with the
/// recipe's `#<stem>` anchor that links to the pair page have always used) linking to the recipe's
/// own page, the authors' citations, the tiles of the model on other GPU types with recipes and
/// links (`unmeasured_gpus`: gpu, href) to the "Not measured yet" pages of those without.
/// `page` (from 1, at most pair_page_count) holds ranks (page - 1) * kRecipesPerPairPage + 1 on,
/// with links to the other pages when there are several.
nlohmann::json pair_page(const Catalog& catalog, const RecipeRanks& ranks, const Model& model,
                         const Gpu& gpu, const SiteSettings& settings, std::size_t page = 1);

/// The page of the recipe ranked `rank` (from 1) of `ranked` in its (model, GPU type): its full
/// card (figures, stack, environment, command, correctness evidence, notes), its exact YAML and
/// its author's citation.
nlohmann::json recipe_page(const Catalog& catalog, const CatalogRecipe& entry, int rank,
                           std::size_t ranked, const Model& model, const Gpu& gpu,
                           const SiteSettings& settings);

/// search.json, the catalog as data beside the pages (for scripts and search boxes):
/// {"recipes": [{model, family, gpu, rank, recipe, tokens_per_s_per_gpu, usd_per_million_tokens,
/// gpus, layout, author, measured, page, yaml}]}, every ranked recipe, by model, GPU type of
/// gpus.yaml and rank; `page` and `yaml` are site paths, tokens/s and USD plain numbers.
nlohmann::json search_index(const Catalog& catalog, const RecipeRanks& ranks);

/// The recipe field reference, generated from the recipe schema in file order: one row per field
/// with its path, type, whether it is required and its description, then the cross-field rules.
nlohmann::json fields_page(const nlohmann::ordered_json& recipe_schema);

/// Splits notes into blocks: paragraphs at blank lines; a paragraph whose lines all start with
/// "- " is a list. Returns [{"paragraph": text} | {"list": [item, ...]}].
nlohmann::json note_blocks(const std::string& notes);

}  // namespace openrecipes
