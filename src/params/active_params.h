// N, the active parameters per token, counted from a Hugging Face config by the catalog's
// convention (issue 4): the weights of every matrix multiply one token passes through in a
// forward pass — attention and linear-attention projections (with an attention output gate and
// depthwise convolution kernels), the top-k routed experts, shared experts and their gate, the
// router and the output layer — leaving out the input embedding, norms, biases, per-head scalars
// and vectors (attention sinks, A_log, dt_bias) and multi-token-prediction layers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "params/hf_config.h"

namespace openrecipes {

/// One component of N: how many layers have it and what one layer's share is.
struct ParamComponent {
  std::string name;            ///< attention, linear attention, dense MLP, routed experts, ...
  std::int64_t layers = 0;     ///< layers holding it (1 for the output layer)
  std::int64_t per_layer = 0;  ///< parameters per layer
  std::int64_t total = 0;      ///< layers x per_layer
  std::string detail;          ///< the matrices, e.g. "q 2880x4096 + k 2880x512 + ..."
};

/// The count and its breakdown.
struct ActiveParamCount {
  std::string model_type;
  std::int64_t active_params = 0;  ///< N, parameters per token
  std::vector<ParamComponent> components;
  std::vector<std::string> left_out;  ///< what the convention leaves out, for this model
};

/// The `model_type`s this counter knows, sorted.
std::vector<std::string> supported_model_types();

/// Counts N for `config`. Returns nullopt, with problems naming the config's file, line and
/// field, for an unsupported model_type (listing the supported ones), a missing field, a wrong
/// type, or a size below its minimum.
std::optional<ActiveParamCount> count_active_params(const HfConfig& config, Problems& problems);

/// Reads `path` (a config.json, or a folder holding one) and counts N, as above; a missing or
/// unreadable file is a problem too.
std::optional<ActiveParamCount> count_active_params_of_file(const std::string& path,
                                                            Problems& problems);

}  // namespace openrecipes
