// Time of one GEMM (or one grouped GEMM over equal experts) on one GPU: a roofline of its FLOPs
// against the GPU's peak and its bytes against HBM bandwidth, with the efficiency a tiled kernel
// loses to tile and wave quantization and to a short reduction dimension.
#pragma once

namespace openrecipes {

/// A GEMM C[m x n] = A[m x k] B[k x n], or `groups` of them with the same shape (a grouped GEMM
/// over local experts, one kernel). Sizes in elements; bytes per element of the inputs (A, B) and
/// of the output.
struct GemmShape {
  double m = 0, n = 0, k = 0;
  double groups = 1;
  double input_bytes = 2;   ///< 2 for BF16, 1 for FP8/MXFP8, 0.5 for NVFP4
  double output_bytes = 2;  ///< BF16 output
};

/// What the GPU offers one GEMM kernel.
struct GemmDevice {
  double peak_flop_per_s = 0;      ///< dense peak at the GEMM's input precision, FLOP/s
  double efficiency = 0.8;         ///< achieved / peak for a large, well-shaped GEMM (fitted)
  double hbm_bytes_per_s = 0;      ///< achieved HBM bandwidth, bytes/s (0: no memory bound)
  int sm_count = 132;              ///< streaming multiprocessors: one output tile each per wave
  int tile_m = 128, tile_n = 256;  ///< output tile of the kernel
};

/// The output tile of a tuned BF16/FP8 GEMM: 128 x 256 on Hopper (the warp-specialized persistent
/// kernels cuBLAS picks for large GEMMs, `sm90_xmma_gemm_..._tilesize128x256x64`), 256 x 256 on
/// Blackwell (two-SM UMMA tiles; NVIDIA CUTLASS docs, "Blackwell SM100 GEMMs"). `blackwell`: the
/// GPU has MXFP8 tensor cores.
GemmDevice gemm_device(double peak_flop_per_s, double efficiency, double hbm_bytes_per_s,
                       int sm_count, bool blackwell);

/// The fraction of the kernel's peak that quantization leaves: useful output elements m x n per
/// group over the tiles the GPU runs, waves x SMs x tile_m x tile_n (a partly filled last tile and
/// a partly filled last wave cost as much as full ones), times k / (k + 128): the mainloop's
/// prologue and epilogue cost about two 64-deep k-tiles (our assumption). In (0, 1].
double gemm_quantization_efficiency(const GemmShape& shape, const GemmDevice& device);

/// Seconds of the GEMM: max(2 m n k x groups / (peak x efficiency x quantization),
/// bytes moved / HBM bandwidth), where bytes = groups x (m k + k n) x input_bytes + m n x
/// output_bytes (the roofline; Williams et al. 2009, "Roofline", CACM 52(4)). 0 for an empty GEMM.
double gemm_time_s(const GemmShape& shape, const GemmDevice& device);

}  // namespace openrecipes
