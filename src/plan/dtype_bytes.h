// Bytes per element of the number formats the memory and speed models count.
#pragma once

namespace openrecipes {

/// Bytes per BF16 element (activations, gathered parameters, all-to-all payloads).
inline constexpr double kBf16Bytes = 2;
/// Bytes per FP32 element (master weights, Adam's moments, gradients reduced in FP32, softmax
/// statistics).
inline constexpr double kFp32Bytes = 4;

}  // namespace openrecipes
