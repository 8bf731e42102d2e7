// The published-measurement dataset (data/measurements/, catalog/measurement_dataset.h) as the
// planner sees it: the rows it can calibrate on as MeasuredLayouts, and every other row with the
// reason it cannot be used.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "catalog/gpu.h"
#include "catalog/measurement_dataset.h"
#include "plan/speed_calibration.h"

namespace openrecipes {

/// A dataset row the planner leaves out, and why.
struct PublishedExclusion {
  std::size_t row = 0;  ///< index in MeasurementDataset::rows
  std::string source;   ///< as MeasuredLayout::source
  /// published.lora, published.known_issue (the release names a bug that slows the figure),
  /// published.fsdp, published.memory, published.no_config, published.model (the
  /// counter rejects the config), published.gpu, or the id of the layout rule check_layout reports
  /// (mesh.*).
  std::string rule;
  std::string reason;  ///< in words
};

/// The dataset split into what the planner can use and what it cannot.
struct PublishedLayouts {
  std::vector<MeasuredLayout> layouts;
  std::vector<PublishedExclusion> excluded;
};

/// "file@commit section row N" for a row: where it was transcribed from.
std::string published_source(const PublishedMeasurement& row);

/// Turns every row of `dataset` into a MeasuredLayout or an exclusion, in row order:
/// - model shape from `<root>/<config>` (model_shape_from_file), read once per model, named as
///   `catalog_models` names the model of that slug when given (so a published row and a catalog
///   recipe of one model are one model to the calibration, the bands and the gap to the best
///   measured), else by its slug;
/// - cluster: the row's GPU type from `gpus` with its per_node and NVLink domain, the row's GPUs;
/// - workload: seq_length, gbs, precision (fp8 and fp8_blockwise as Precision::kFp8),
///   forced-balanced routing for an MoE row whose routing is forced_balanced, TP communication
///   overlap with TP > 1 but NVFP4, and the model's run_settings the row matches
///   (MeasurementModel::settings_for: dispatcher and flex backend, shared-expert and A2A overlaps,
///   fused expert MLP), else the shared-expert overlap alone;
/// - layout: TP/PP/VPP/CP/EP as published (n/a = 1), ETP = 1 (not stated), DP implied,
///   rows_per_microbatch = MBS, max_tokens_per_gpu = MBS x seq / CP, sequence parallel when
///   TP > 1, the alltoall dispatcher when EP > 1 unless the run settings say flex;
/// - name = model, release, system, GPUs and precision; source = published_source; published.
/// Left out: LoRA rows (only adapters train), rows with FSDP > 0 (the speed model has no FSDP),
/// rows whose model has no config or a config the counter rejects, and rows check_layout rejects
/// (the first broken rule), and rows the memory model predicts to need more than 110% of the
/// GPU's memory with the most recompute their settings allow (published.memory). The table states
/// no placement or recompute: an even split when legal, else balanced_placement; the recompute
/// models.yaml's run_settings states (recompute_modules), else of none, the Megatron-Bridge
/// configs' selective module sets and full, the legal choice predicted to fit in the whole GPU
/// memory that the default speed parameters predict fastest; else the least-memory legal one
/// within 10% over it. Never fails: every row lands in one of the two lists.
PublishedLayouts published_layouts(const std::filesystem::path& root,
                                   const MeasurementDataset& dataset, const std::vector<Gpu>& gpus,
                                   const std::vector<Model>* catalog_models = nullptr);

}  // namespace openrecipes
