#include "layout/plan_inputs.h"

namespace openrecipes {

std::string precision_name(Precision precision) {
  switch (precision) {
    case Precision::kFp8:
      return "fp8";
    case Precision::kMxfp8:
      return "mxfp8";
    case Precision::kNvfp4:
      return "nvfp4";
    case Precision::kBf16:
      break;
  }
  return "bf16";
}

std::optional<Precision> precision_from_name(std::string_view name) {
  for (Precision p : {Precision::kBf16, Precision::kFp8, Precision::kMxfp8, Precision::kNvfp4}) {
    if (name == precision_name(p)) return p;
  }
  return std::nullopt;
}

double gradient_bytes_per_param(const PlanWorkload& workload) {
  return workload.grad_reduce_in_fp32 ? 4 : 2;
}

}  // namespace openrecipes
