// The published-measurement dataset (data/measurements/): training-speed rows transcribed from
// Megatron-Bridge's performance summary, and the models they name. Loaded strictly against
// schema/measurements.schema.yaml and schema/measurement-models.schema.yaml, then checked field
// against field (rules measurements.*; data/measurements/README.md says what each field means).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/gpu.h"
#include "catalog/model.h"

namespace openrecipes {

/// Where a published row was transcribed from.
struct MeasurementSource {
  std::string file;     ///< the document's path in its repository
  std::string commit;   ///< the repository commit
  std::string section;  ///< release / task / table heading
  int row = 0;          ///< 1-based table row
  int line = 0;         ///< 1-based line of the row in the document
};

/// One published measurement (one table row, or one of the two values of a row's cells).
struct PublishedMeasurement {
  std::string release;  ///< NeMo container release, e.g. 26.06.01
  std::string task;     ///< pretraining, sft or lora
  std::string model;    ///< slug in data/measurements/models.yaml
  std::string model_as_written;
  std::vector<std::string> variant;  ///< w/o MTP, tokendrop, Muon optimizer...
  std::string system;                ///< as written, e.g. DGX-GB300
  std::string gpu;                   ///< GPU type in gpus.yaml, e.g. GB300
  int gpus = 0;
  std::optional<std::string> precision_as_written;  ///< nullopt: the table has no column
  std::string precision;                            ///< bf16, fp8, fp8_blockwise, mxfp8 or nvfp4
  bool precision_stated = true;
  std::string measurement;      ///< first, second, or empty for a cell with one value
  std::int64_t gbs = 0;         ///< sequences per optimizer step
  int mbs = 0;                  ///< sequences per micro-batch
  std::int64_t seq_length = 0;  ///< tokens per sequence
  std::optional<int> fsdp;      ///< where the table has the column; 0 = DDP
  int tp = 1, pp = 1, cp = 1;
  std::optional<int> vpp, ep, etp, ga;  ///< nullopt: n/a or not stated
  bool ga_mismatch = false;             ///< the published GA differs from GBS / (MBS x DP)
  std::string routing;                  ///< forced_balanced, token_drop, or empty for a dense model
  double tokens_per_s_per_gpu = 0;
  double model_tflop_per_s_per_gpu = 0;
  std::vector<std::string> notes;
  /// The bug the release names as slowing this figure (a known regression), else empty.
  std::string known_issue;
  MeasurementSource source;
  SourcePosition position;  ///< of the row in the dataset file
  std::size_t index = 0;    ///< position in `rows`, for field paths (rows[i])
};

/// Settings the tables do not state, as Megatron-Bridge's performance scripts set them for a
/// model's runs (models.yaml's `run_settings`): they apply to a row whose GPU type, precision,
/// GBS, MBS and layout match every key the entry states.
struct PublishedRunSettings {
  std::vector<std::string> gpus;        ///< GPU types; empty: any
  std::vector<std::string> precisions;  ///< as rows write them; empty: any
  std::optional<std::int64_t> gbs;      ///< rows per step
  std::optional<int> mbs, tp, pp, vpp, ep;
  std::string dispatcher;              ///< alltoall or flex
  std::string flex_backend;            ///< deepep or hybridep with flex; empty otherwise
  bool shared_expert_overlap = false;  ///< moe_shared_expert_overlap
  bool ep_a2a_overlap = false;         ///< moe_a2a_overlap (--overlap-moe-expert-parallel-comm)
  bool fused_expert_mlp = false;       ///< cutedsl_fused_grouped_mlp
  /// recompute_modules (selective recompute; empty: none); nullopt: the config does not say
  std::optional<std::vector<std::string>> recompute_modules;
  std::string source_file;                  ///< path in NVIDIA-NeMo/Megatron-Bridge
  std::string source_commit;                ///< the commit read
  std::vector<std::string> source_configs;  ///< the config names that set them

  /// Whether `row` matches every key stated here (a row without VPP matches vpp 1).
  bool matches(const PublishedMeasurement& row) const;
};

/// One model of data/measurements/models.yaml.
struct MeasurementModel {
  std::string slug;
  std::vector<std::string> names;  ///< as the tables spell it
  std::string kind;                ///< dense or moe
  std::string hf_repo;
  /// models/<slug>/config.json, relative to the catalog root: the catalog's own copy, which
  /// models.yaml lists the model with too
  std::optional<std::string> config;
  std::string config_reason;  ///< why there is no config (config nullopt)
  /// First match wins; empty: every row keeps the defaults (data/measurements/README.md).
  std::vector<PublishedRunSettings> run_settings;
  /// grad_reduce_in_fp32 as the model's performance script sets it for all its runs (models.yaml's
  /// `grad_reduce_in_fp32.value`); true where absent, as Megatron-Bridge's mixed-precision
  /// presets set it.
  bool grad_reduce_in_fp32 = true;
  std::string grad_reduce_source_file;                  ///< path in NVIDIA-NeMo/Megatron-Bridge
  std::string grad_reduce_source_commit;                ///< the commit read
  std::vector<std::string> grad_reduce_source_configs;  ///< the function that sets it

  /// The first run_settings entry `row` matches, or nullptr.
  const PublishedRunSettings* settings_for(const PublishedMeasurement& row) const;
};

/// The dataset as loaded.
struct MeasurementDataset {
  std::string file;         ///< the rows file as problems name it
  std::string models_file;  ///< the models file as problems name it
  std::vector<PublishedMeasurement> rows;
  std::vector<MeasurementModel> models;

  /// The model with slug `slug`, or nullptr.
  const MeasurementModel* find_model(const std::string& slug) const;
};

/// Where the dataset lives under a catalog root.
inline constexpr const char* kMeasurementRowsFile = "data/measurements/megatron-bridge.yaml";
inline constexpr const char* kMeasurementModelsFile = "data/measurements/models.yaml";
/// The dataset's folder under a catalog root. A model's `config` path is relative to the root
/// itself: models/<slug>/config.json with source.yaml beside it, shared with models.yaml.
inline constexpr const char* kMeasurementDir = "data/measurements";

/// Reads `<root>/data/measurements/megatron-bridge.yaml` and `models.yaml`, checks them against
/// their schemas, then the cross-field rules with `gpus` (gpus.yaml's types):
/// - `measurements.dp`: TP x PP x CP divides the GPUs;
/// - `measurements.batch`: MBS x DP divides GBS;
/// - `measurements.ga`: a stated GA equals GBS / (MBS x DP), unless `ga_mismatch` records that
///   the published figure differs (and then it must differ);
/// - `measurements.vpp`: VP > 1 only with PP > 1;
/// - `measurements.gpu`: the GPU type is in gpus.yaml and the system is DGX-<type>;
/// - `measurements.precision`: the normalised precision matches the written one;
/// - `measurements.model`: the model is in models.yaml; `measurements.routing`: routing is null
///   exactly for a dense model;
/// - `measurements.config`: a listed config.json and its source.yaml exist;
/// - `measurements.catalog_model` (only when `catalog_models` is given): a model with a config is
///   also in models.yaml under the same slug, so the site can show its published runs;
/// - `measurements.unique`: no two rows share release, task, model, variant, system, GPUs,
///   precision, batch, sequence and layout; no two models share a slug.
/// Returns nullopt, adding problems (file, line:col, field, rule), when a file is missing,
/// malformed or breaks a rule.
std::optional<MeasurementDataset> load_measurement_dataset(
    const std::filesystem::path& root, const std::vector<Gpu>& gpus, Problems& problems,
    const std::vector<Model>* catalog_models = nullptr);

}  // namespace openrecipes
