// The recipe's `result` block from a scored log (ready to paste), and where a recipe's stated
// result disagrees with the log.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/problem.h"
#include "base/yaml_document.h"
#include "catalog/catalog.h"
#include "catalog/recipe.h"
#include "runs/run_score.h"

namespace openrecipes {

/// The score and what the catalog adds to it.
struct ResultBlock {
  RunScore score;
  ScoreSetup setup;
  std::int64_t steps_per_run = 0;             ///< steps the run took
  std::optional<double> usd_per_gpu_hour;     ///< gpus.yaml's rate, for the cost
  std::optional<double> peak_flop_per_s;      ///< gpus.yaml's peak, for the MFU
  std::optional<std::int64_t> active_params;  ///< N, for the MFU
  /// GPUs x (scheduler admission to finish) in hours, from the scheduler's own start and end
  /// times (`openrecipes measure`); when set it is the block's gpu_hours instead of the log's,
  /// never below the window's own GPU time.
  std::optional<double> scheduler_gpu_hours;
};

/// Fills `block`'s cost and MFU inputs from `catalog`: gpus.yaml's price and bf16 dense peak of
/// `gpu_type`, models.yaml's active parameters of `model` (an empty name is left out). Returns
/// false with one Problem (rule `score.catalog`, field `gpu.type` or `model`, file and position
/// left for the caller to set) for the first name not in the catalog; a GPU's lists the known
/// types as expected.
bool add_catalog_figures(ResultBlock& block, const Catalog& catalog, const std::string& gpu_type,
                         const std::string& model, Problems& problems);

/// `result:` lines in the recipe's layout (docs/run-evidence.md): tokens/s per GPU to 2 decimals,
/// cost to the cent, CV to 2 decimals, MFU to 4, the window, every step's time in seconds to the
/// microsecond (`step_times_s`, when the log times each of the run's steps), GPU-hours from the
/// scheduler when given, else from the log's timestamps when it has them (with a note that startup
/// is not in them). Figures the inputs cannot give are left out, with a comment saying what to add.
std::string result_block_yaml(const ResultBlock& block);

/// The same figures, unrounded, as JSON.
nlohmann::ordered_json result_block_json(const ResultBlock& block);

/// Where `recipe` (parsed from `document`) states a result the log does not give: the score and
/// CV at their stated decimals, the window tokens, steps per run, and GPU-hours below what the log
/// alone took. Each problem is at the recipe's field; expected is the log's figure.
Problems check_result_against_recipe(const ResultBlock& block, const YamlDocument& document,
                                     const Recipe& recipe);

}  // namespace openrecipes
