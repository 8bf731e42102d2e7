// NVIDIA Nemotron-H and Nemotron 3 (Nano, Super, Ultra), Hugging Face model_type nemotron_h: a
// stack of single-part layers, each a Mamba-2 mixer, a softmax-attention mixer, a squared-ReLU
// MLP or a mixture of squared-ReLU experts (transformers
// src/transformers/models/nemotron_h/modular_nemotron_h.py; NVIDIA 2025, Nemotron-H,
// arXiv:2504.03624).
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"

namespace openrecipes {

/// Reads a nemotron_h config: the layer kinds from `hybrid_override_pattern` (M Mamba-2,
/// * attention, - MLP, E MoE; one character per layer) or, in newer configs, `layers_block_type`
/// (mamba or linear_attention, attention or full_attention, mlp, moe); the Mamba-2 sizes
/// (mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size, conv_kernel); GQA attention;
/// `intermediate_size` for the MLP layers; n_routed_experts, num_experts_per_tok,
/// moe_intermediate_size, moe_shared_expert_intermediate_size and moe_latent_size for the MoE
/// layers; num_nextn_predict_layers (MTP, left out of N). N per the convention of
/// docs/active-params.md. Returns nullopt with problems (file, line, field, expected, found) for
/// a missing or bad size, a pattern whose length is not num_hidden_layers, an unknown layer kind,
/// groups that do not divide the Mamba heads, KV heads that do not divide the heads, or top-k
/// above the experts.
std::optional<FamilyModel> read_nemotron_h(const HfConfig& config, Problems& problems);

}  // namespace openrecipes
