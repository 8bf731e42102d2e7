// What a plan is for besides the model: the GPUs (type, count, node size) and the workload
// (sequence length, global batch, precision). The protocol's values are the defaults.
#pragma once

#include <cstdint>
#include <string>

#include "catalog/gpu.h"
#include "catalog/protocol.h"

namespace openrecipes {

/// The GPUs a layout runs on.
struct ClusterShape {
  Gpu gpu;           ///< the GPU type (gpus.yaml): memory, peak FLOP/s, bandwidths, rate
  int gpus = 0;      ///< GPUs in all (the world size W)
  int per_node = 0;  ///< GPUs per node; TP stays within one node
};

/// Arithmetic precision of the linear layers.
enum class Precision { kBf16, kFp8 };

/// The training workload. Defaults are the protocol's (the submission guide): 8,192-token rows,
/// global batch 128 rows, BF16.
struct PlanWorkload {
  std::int64_t row_tokens = kRowTokens;          ///< tokens per row (the sequence length)
  std::int64_t global_batch = kGlobalBatchRows;  ///< rows per optimizer step
  Precision precision = Precision::kBf16;
};

/// "bf16" or "fp8".
std::string precision_name(Precision precision);

}  // namespace openrecipes
