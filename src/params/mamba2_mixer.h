// The weight matrices of one Mamba-2 mixer (state-space duality; Dao and Gu 2024,
// arXiv:2405.21060), as nemotron_h and falcon_h1 build it: one input projection, a depthwise
// causal convolution and one output projection. Counted once here so that both family readers
// add them up the same way.
#pragma once

#include <cstdint>

#include "params/param_blocks.h"

namespace openrecipes {

/// The sizes of one Mamba-2 mixer, read by a family reader from its own field names.
struct Mamba2Sizes {
  std::int64_t heads = 0;     ///< SSM heads (nemotron_h mamba_num_heads, falcon_h1 mamba_n_heads)
  std::int64_t head_dim = 0;  ///< channels per head
  std::int64_t inner = 0;     ///< d_inner = heads x head_dim (falcon_h1: mamba_d_ssm)
  std::int64_t groups = 0;    ///< B/C groups (n_groups)
  std::int64_t state = 0;     ///< d_state
  std::int64_t kernel = 0;    ///< depthwise convolution width
};

/// The mixer's weights (transformers modeling_nemotron_h.py NemotronHMamba2Mixer and
/// modeling_falcon_h1.py FalconH1Mixer): in_proj hidden x (2 d_inner + 2 G N + heads) (z, x, B, C
/// and dt), the depthwise conv1d over the d_inner + 2 G N channels of x, B and C (one `kernel`
/// wide filter each) and out_proj d_inner x hidden. Left out: A_log, D and dt_bias (one scalar
/// per head), the gated norm and the biases.
BlockParams mamba2_mixer(std::int64_t hidden, const Mamba2Sizes& m);

}  // namespace openrecipes
