// TII Falcon-H1, Hugging Face model_type falcon_h1: a parallel hybrid, each decoder layer runs a
// softmax-attention mixer and a Mamba-2 mixer side by side on the same input and adds their
// outputs, then a gated (SwiGLU) MLP (transformers
// src/transformers/models/falcon_h1/modeling_falcon_h1.py, FalconH1DecoderLayer; TII 2025,
// Falcon-H1 technical report).
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a falcon_h1 config: GQA attention (num_attention_heads, num_key_value_heads, head_dim),
/// the Mamba-2 sizes (mamba_n_heads, mamba_d_ssm, or mamba_expand x hidden_size when it is absent
/// or null; mamba_d_head, or mamba_d_ssm / mamba_n_heads when absent; mamba_n_groups,
/// mamba_d_state, mamba_d_conv) and the MLP's intermediate_size, all in every layer. The muP
/// multipliers (embedding, attention, SSM, MLP, LM head) are scalars and are not read. N per the
/// convention of docs/active-params.md. Returns nullopt with problems (file, line, field,
/// expected, found) for a missing or bad size, Mamba heads that do not tile mamba_d_ssm, groups
/// that do not divide the Mamba heads, or KV heads that do not divide the heads.
std::optional<FamilyModel> read_falcon_h1(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
