#include "export/precision_arguments.h"

namespace openrecipes {

std::vector<CommandArgument> precision_arguments(Precision precision) {
  switch (precision) {
    case Precision::kFp8:
      return {{"--fp8-format", {"hybrid"}}, {"--fp8-recipe", {"tensorwise"}}};
    case Precision::kMxfp8:
      return {{"--fp8-format", {"e4m3"}},
              {"--fp8-recipe", {"mxfp8"}},
              {"--fp8-param-gather", {}},
              {"--reuse-grad-buf-for-mxfp8-param-ag", {}}};
    case Precision::kNvfp4:
      return {{"--fp4-format", {"e2m1"}}, {"--fp4-recipe", {"nvfp4"}}};
    case Precision::kBf16:
      break;
  }
  return {};
}

std::string precision_preset(Precision precision) {
  switch (precision) {
    case Precision::kFp8:
      return "bf16_with_fp8_current_scaling_mixed";
    case Precision::kMxfp8:
      return "bf16_with_mxfp8_mixed";
    case Precision::kNvfp4:
      return "bf16_with_nvfp4_mixed";
    case Precision::kBf16:
      break;
  }
  return "bf16_mixed";
}

}  // namespace openrecipes
