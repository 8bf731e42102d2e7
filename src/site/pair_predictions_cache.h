// The site's predictions (pair_predictions.h) kept in the result cache, so that a build whose
// inputs and binary have not changed renders its "Not measured yet" pages without refitting the
// speed model and searching every pair again.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/result_cache.h"
#include "site/pair_predictions.h"

namespace openrecipes {

/// `predictions` as JSON, every field by its name, numbers as exact doubles.
nlohmann::json site_predictions_to_json(const SitePredictions& predictions);

/// What site_predictions_to_json wrote, or nullopt when `json` is anything else (a missing field,
/// a field of another type, a negative count).
std::optional<SitePredictions> site_predictions_from_json(const nlohmann::json& json);

/// predict_unmeasured_pairs(check), read from `cache` under `key` when stored there, else
/// computed and stored. `key` must identify what the predictions read (the catalog's inputs but
/// recipes/, measurement_evidence of `check.recipes`) and the code: the CLI's catalog_cache.
/// A null `cache`: no cache.
SitePredictions predict_unmeasured_pairs_cached(const CatalogCheck& check, const ResultCache* cache,
                                                const std::string& key);

}  // namespace openrecipes
