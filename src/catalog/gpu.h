// A GPU type of the catalog (gpus.yaml): memory, peak FLOP/s, link bandwidths and the rate that
// prices a recipe.
#pragma once

#include <string>
#include <vector>

#include "base/yaml_document.h"

namespace openrecipes {

/// One entry of gpus.yaml.
struct Gpu {
  std::string type;  ///< as recipes spell it, e.g. H200
  std::string slug;  ///< folder under recipes/<model>/, e.g. h200
  int memory_gb = 0;
  double peak_bf16_dense_flop_per_s = 0;  ///< FLOP/s, the MFU denominator
  std::string peak_source;
  double peak_fp8_dense_flop_per_s = 0;  ///< FLOP/s, the speed model's rate for FP8 linear layers
  std::string peak_fp8_source;
  double nvlink_gb_per_s = 0;  ///< GB/s (1e9 bytes/s) per GPU, one direction, within a node
  std::string nvlink_source;
  double network_gb_per_s =
      0;  ///< GB/s per GPU, one direction, between nodes (instance total / GPUs)
  std::string network_source;
  int per_node = 0;
  /// GPUs one NVLink domain joins (8 in an HGX/DGX node, 72 in a GB200/GB300 NVL72 rack); 0 when
  /// unknown, then per_node. Collectives within it run at nvlink_gb_per_s.
  int nvlink_domain = 0;
  std::string nvlink_domain_source;
  double hbm_gb_per_s = 0;  ///< HBM bandwidth per GPU, GB/s (1e9 bytes/s); 0 when unknown
  std::string hbm_source;
  double peak_mxfp8_dense_flop_per_s = 0;  ///< FLOP/s, MXFP8 (Blackwell and later); 0 when none
  std::string peak_mxfp8_source;
  double peak_nvfp4_dense_flop_per_s = 0;  ///< FLOP/s, NVFP4 (Blackwell and later); 0 when none
  std::string peak_nvfp4_source;
  int sm_count = 0;  ///< streaming multiprocessors, for GEMM wave quantization; 0 when unknown
  std::string sm_source;
  /// Exponentials per second of the special-function units, which bound attention's softmax
  /// (FlashAttention-3, arXiv:2407.08608, section 1); 0 when unknown, then the dense BF16 peak /
  /// 256, Hopper's ratio.
  double exp_per_s = 0;
  std::string exp_source;
  std::string instance;
  /// USD per GPU-hour, the cost numerator; 0 when gpus.yaml gives no rate (no cost can be computed)
  double usd_per_gpu_hour = 0;
  std::string rate_source;
  std::string rate_date;

  /// Every field equal (C++20 defaulted comparison): the same inputs to the planner.
  bool operator==(const Gpu&) const = default;
};

/// Reads GPU types from gpus.yaml's root node (already checked against gpus.schema.yaml).
std::vector<Gpu> gpus_from_yaml(const YamlNode& root);

}  // namespace openrecipes
