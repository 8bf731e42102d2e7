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

/// The site path of the (model, GPU type) page: `<model slug>/<gpu slug>/index.html`.
std::string pair_page_path(const Model& model, const Gpu& gpu);

/// The index: models grouped by family (sorted), each with its best tokens/s per GPU on every
/// GPU type of gpus.yaml ("—" where there is no verified recipe). `root` is "" (site top).
nlohmann::json index_page(const Catalog& catalog, const std::vector<CatalogRecipe>& recipes);

/// The page of one (model, GPU type), as the committed site shows it
/// (site/qwen3.5-122b-a10b/h200/): ranked table, a card per recipe, the authors' citations and the
/// tiles of the model on other GPU types.
nlohmann::json pair_page(const Catalog& catalog, const std::vector<CatalogRecipe>& recipes,
                         const Model& model, const Gpu& gpu, const SiteSettings& settings);

/// The recipe field reference, generated from the recipe schema in file order: one row per field
/// with its path, type, whether it is required and its description, then the cross-field rules.
nlohmann::json fields_page(const nlohmann::ordered_json& recipe_schema);

/// Splits notes into blocks: paragraphs at blank lines; a paragraph whose lines all start with
/// "- " is a list. Returns [{"paragraph": text} | {"list": [item, ...]}].
nlohmann::json note_blocks(const std::string& notes);

}  // namespace openrecipes
