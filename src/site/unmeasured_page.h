// The page of a (model, GPU type) with no verified recipe yet: what was published elsewhere for
// the pair, the planner's suggested layouts with their error bands (visibly predictions: never a
// rank, never a figure of the index), and how to measure and submit one.
#pragma once

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/measurement_dataset.h"
#include "site/page_model.h"
#include "site/pair_predictions.h"

namespace openrecipes {

/// The "Not measured yet" page of `model` on `gpu`, at pair_page_path(model, gpu) (where its
/// ranked page appears once a recipe lands): root, title, model, family, hf_repo, gpu, the
/// model's notes, published_context's keys for `measurements` (may be null), and from
/// `prediction` (may be null: nothing predicted) has_prediction, gpus, no_layout_reason,
/// suggestions [{number, layout, recompute, tokens_per_s ("≈7,546"), tokens_per_s_value, band
/// ("±12%"), unlike_measured, memory_gb, mfu, usd_per_million, export_command, measure_command}],
/// mape, calibrated_rows and has_calibration from `predictions` (with no calibrated row a band
/// reads "none: nothing measured", not ±0%).
nlohmann::json unmeasured_page(const Model& model, const Gpu& gpu, const PairPrediction* prediction,
                               const SitePredictions& predictions,
                               const MeasurementDataset* measurements);

}  // namespace openrecipes
