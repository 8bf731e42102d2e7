#include "catalog/gpu.h"

#include "base/yaml_fields.h"

namespace openrecipes {

std::vector<Gpu> gpus_from_yaml(const YamlNode& root) {
  std::vector<Gpu> gpus;
  const YamlNode* list = root.find("gpus");
  if (!list) return gpus;
  for (const YamlNode& item : list->items) {
    Gpu g;
    g.type = field_string(item, "type");
    g.slug = field_string(item, "slug");
    g.memory_gb = static_cast<int>(field_int(item, "memory_gb"));
    g.peak_bf16_dense_flop_per_s = field_number(item, "peak_bf16_dense_flop_per_s");
    g.peak_source = field_string(item, "peak_source");
    g.peak_fp8_dense_flop_per_s = field_number(item, "peak_fp8_dense_flop_per_s");
    g.peak_fp8_source = field_string(item, "peak_fp8_source");
    g.nvlink_gb_per_s = field_number(item, "nvlink_gb_per_s");
    g.nvlink_source = field_string(item, "nvlink_source");
    g.network_gb_per_s = field_number(item, "network_gb_per_s");
    g.network_source = field_string(item, "network_source");
    g.per_node = static_cast<int>(field_int(item, "per_node"));
    g.nvlink_domain = field_int32(item, "nvlink_domain");
    g.nvlink_domain_source = field_string(item, "nvlink_domain_source");
    g.hbm_gb_per_s = field_number(item, "hbm_gb_per_s");
    g.hbm_source = field_string(item, "hbm_source");
    g.peak_mxfp8_dense_flop_per_s = field_number(item, "peak_mxfp8_dense_flop_per_s");
    g.peak_mxfp8_source = field_string(item, "peak_mxfp8_source");
    g.peak_nvfp4_dense_flop_per_s = field_number(item, "peak_nvfp4_dense_flop_per_s");
    g.peak_nvfp4_source = field_string(item, "peak_nvfp4_source");
    g.sm_count = field_int32(item, "sm_count");
    g.sm_source = field_string(item, "sm_source");
    g.exp_per_s = field_number(item, "exp_per_s");
    g.exp_source = field_string(item, "exp_source");
    g.instance = field_string(item, "instance");
    g.usd_per_gpu_hour = field_number(item, "usd_per_gpu_hour");
    g.rate_source = field_string(item, "rate_source");
    g.rate_date = field_string(item, "rate_date");
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace openrecipes
