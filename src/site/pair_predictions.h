// The planner's suggestions for the site's "Not measured yet" pages: for every catalog model and
// GPU type with no verified recipe, the top layouts `openrecipes plan` ranks under the protocol,
// with their error bands. Computed once per build, before any page is rendered.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "validate/recipe_validator.h"

namespace openrecipes {

/// One layout the planner suggests: what `plan` prints for it, and the commands to try it.
struct SuggestedLayout {
  std::string layout;                 ///< the layout's label, e.g. "TP1 PP2 EP4 DP2 MBS1"
  std::string recompute;              ///< none, selective, full:uniform:1, ...
  double tokens_per_s_per_gpu = 0;    ///< predicted, tokens/s per GPU
  double band = 0;                    ///< prediction_band's relative error (0.12 for +-12%)
  bool unlike_measured = false;       ///< farther than kUnlikeDistance from every measured layout
  double memory_gb = 0;               ///< predicted peak per GPU, GB (10^9 bytes)
  double mfu = 0;                     ///< predicted MFU, fraction
  double usd_per_million_tokens = 0;  ///< predicted; 0 when the GPU type has no rate
  std::string export_arguments;       ///< layout_flags_text: the flags `export` takes
  /// A MoE layout's token dispatcher: "alltoall", "flex (DeepEP)" or "flex (HybridEP)"; empty
  /// for a dense model.
  std::string dispatcher = {};
};

/// The suggestions for one (model, GPU type) with no verified recipe.
struct PairPrediction {
  std::string model;                     ///< models.yaml name
  std::string gpu_type;                  ///< gpus.yaml type
  int gpus = 0;                          ///< the GPU count searched (0 when none was)
  std::vector<SuggestedLayout> layouts;  ///< best first, at most kSuggestedLayouts; may be empty
  std::string no_layout_reason;          ///< why `layouts` is empty, in words
};

/// What the planner says about every unmeasured pair, and how far it is trusted overall.
struct SitePredictions {
  std::vector<PairPrediction> pairs;  ///< by models.yaml order, then gpus.yaml order
  double mape = 0;                    ///< the calibration's leave-one-model-out MAPE, fraction
  std::size_t calibrated_rows = 0;    ///< measured layouts the speed model was fitted on
  /// The prediction of (model, GPU type), or null when the pair has a recipe.
  const PairPrediction* find(const std::string& model, const std::string& gpu_type) const;
};

/// Layouts shown per unmeasured pair.
inline constexpr std::size_t kSuggestedLayouts = 3;
/// The largest cluster searched for a pair, GPUs.
inline constexpr int kMaxSuggestedGpus = 1024;
/// The deepest model the site searches: the search's pipeline placements grow with the layers
/// (a 1,000-layer config takes seconds, 20,000 minutes), and the deepest model trained today has
/// 126 (Llama 3.1 405B). A deeper one gets a reason instead; `plan` still searches it.
inline constexpr int kMaxSuggestedLayers = 512;

/// Calibrates the speed model as `plan` does (the verified recipes of `check` and the usable rows
/// of its published measurements, with the leave-one-model-out refits; repeated measurements of
/// one configuration, such as renamed copies of a recipe, count once) and, for every model x GPU
/// type of the catalog with no verified recipe, searches the protocol's workload (rows of 8,192
/// tokens, global batch 128, BF16, 10% memory headroom) on the smallest whole-node cluster of 1,
/// 2, 4, ... nodes up to kMaxSuggestedGpus GPUs on which some layout fits, keeping the top
/// kSuggestedLayouts distinct parallel layouts (each with its fastest recompute and offload
/// setting) with their bands. Models whose config is the same file content share one
/// search per GPU type. Deterministic. Nothing to predict (every pair measured) skips the
/// calibration and returns no pairs; no verified recipe at all gives every pair no layouts and
/// the reason, as `plan` refuses then (plan.no_recipes).
SitePredictions predict_unmeasured_pairs(const CatalogCheck& check);

}  // namespace openrecipes
