#include "plan/gemm_time.h"

#include <algorithm>
#include <cmath>

namespace openrecipes {
namespace {

// Mainloop prologue and epilogue, in reduction elements: about two k-tiles of 64 (assumption).
constexpr double kReductionOverhead = 128;

}  // namespace

GemmDevice gemm_device(double peak_flop_per_s, double efficiency, double hbm_bytes_per_s,
                       int sm_count, bool blackwell) {
  GemmDevice d;
  d.peak_flop_per_s = peak_flop_per_s;
  d.efficiency = efficiency;
  d.hbm_bytes_per_s = hbm_bytes_per_s;
  d.sm_count = sm_count > 0 ? sm_count : 132;
  d.tile_m = blackwell ? 256 : 128;
  d.tile_n = 256;
  return d;
}

double gemm_quantization_efficiency(const GemmShape& s, const GemmDevice& d) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.groups <= 0) return 1;
  double tiles = s.groups * std::ceil(s.m / d.tile_m) * std::ceil(s.n / d.tile_n);
  double waves = std::ceil(tiles / d.sm_count);
  double useful = s.groups * s.m * s.n;
  double run = waves * d.sm_count * d.tile_m * d.tile_n;
  return std::min(1.0, useful / run) * s.k / (s.k + kReductionOverhead);
}

double gemm_time_s(const GemmShape& s, const GemmDevice& d) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.groups <= 0 || d.peak_flop_per_s <= 0) return 0;
  double flop = 2 * s.m * s.n * s.k * s.groups;
  double compute_s = flop / (d.peak_flop_per_s * d.efficiency * gemm_quantization_efficiency(s, d));
  double bytes =
      s.groups * (s.m * s.k + s.k * s.n) * s.input_bytes + s.groups * s.m * s.n * s.output_bytes;
  double memory_s = d.hbm_bytes_per_s > 0 ? bytes / d.hbm_bytes_per_s : 0;
  return std::max(compute_s, memory_s);
}

}  // namespace openrecipes
