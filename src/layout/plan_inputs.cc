#include "layout/plan_inputs.h"

namespace openrecipes {

std::string precision_name(Precision precision) {
  return precision == Precision::kFp8 ? "fp8" : "bf16";
}

}  // namespace openrecipes
