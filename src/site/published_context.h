// A pair page's "Published elsewhere" section: the published measurements of data/measurements/
// for the same model and GPU type, with their citations. They were measured under other protocols
// (mostly pretraining, other batch and sequence lengths), so they are listed, never ranked.
#pragma once

#include <nlohmann/json.hpp>

#include "catalog/gpu.h"
#include "catalog/measurement_dataset.h"
#include "catalog/model.h"

namespace openrecipes {

/// Where the published tables live: the rows' `source.file` at `source.commit` in this repository
/// (data/measurements/README.md).
inline constexpr const char* kPublishedTablesRepository =
    "https://github.com/NVIDIA-NeMo/Megatron-Bridge";

/// The rows of `dataset` (may be null: no dataset) whose model slug is `model.slug` and whose
/// GPU type is `gpu.type`, newest release first, then by GPU count and tokens/s per GPU
/// (descending): {"has_published", "published_count", "published": [{release, task, variant and
/// has_variant,
/// gpus, precision, gbs, mbs, seq_length, layout ("TP1 PP2 VPP8 CP1 EP32 ETP1", sizes the table
/// leaves out omitted), tokens_per_s (formatted), tokens_per_s_value, tflops (formatted model
/// TFLOP/s per GPU), note (notes and known issue, joined) and has_note, cite_href (the table line
/// on GitHub),
/// cite_text ("file@commit7, section, row N")}]}.
nlohmann::json published_context(const MeasurementDataset* dataset, const Model& model,
                                 const Gpu& gpu);

}  // namespace openrecipes
