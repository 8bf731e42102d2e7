// Multi-head latent attention with DeepSeek sparse attention (DSA) and DeepSeekMoE: DeepSeek-V3.2
// (`deepseek_v32`; DeepSeek-AI 2025, DeepSeek-V3.2-Exp report, and inference/model.py of
// deepseek-ai/DeepSeek-V3.2-Exp) and GLM-5 (`glm_moe_dsa`; transformers
// models/glm_moe_dsa/modular_glm_moe_dsa.py, whose layer is DeepSeek-V3.2's with indexers that
// later layers may share). Each layer is DeepSeek-V3's (MLA, then a dense MLP or routed experts
// with shared experts) plus a lightning indexer that picks the `index_topk` keys each query
// attends.
#pragma once

#include <optional>

#include "base/problem.h"
#include "params/family_registry.h"
#include "params/hf_config.h"
#include "params/param_blocks.h"

namespace openrecipes {

/// The lightning indexer's weights of one layer (inference/model.py, class Indexer): wq_b from
/// the query's low-rank projection (`q_lora_rank`) to `index_n_heads` x `index_head_dim`, wk from
/// the hidden state to one `index_head_dim` key, weights_proj from the hidden state to one weight
/// per head. Its key LayerNorm (weight and bias) is a norm and left out. Bad or missing sizes are
/// recorded on `c`.
BlockParams lightning_indexer(const HfConfig& c, const Shape& s);

/// Reads a `deepseek_v32` or `glm_moe_dsa` config: N with its breakdown ("attention", "indexer",
/// "dense MLP", "routed experts", "shared experts", "router", "output layer") and the planner's
/// shape. Which layers have routed experts comes from `mlp_layer_types` ("dense"/"sparse") when
/// the config lists it, else from `first_k_dense_replace` and `moe_layer_freq` as in DeepSeek-V3;
/// which layers run their own indexer from `indexer_types` ("full"/"shared") when listed, else
/// from `index_topk_freq` and `index_skip_topk_offset` (GlmMoeDsaConfig's defaults: every layer).
/// Returns nullopt with problems (file, line, field, expected, found) for a missing or bad size, a
/// layer list whose length is not `num_hidden_layers`, an unknown layer kind, a first layer that
/// shares an indexer no earlier layer has, or more experts per token than experts.
std::optional<FamilyModel> read_sparse_attention_model(const HfConfig& c, Problems& problems);

}  // namespace openrecipes
