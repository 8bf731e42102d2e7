// How a model's layer kinds combine into the parts of one decoder layer: which mixers share a
// layer (parallel hybrids such as Falcon-H1 run attention and Mamba-2 side by side), how many
// blocks (mixer or MLP, each with its norm, TP collectives and residual) an average layer has,
// and how many keys a query of a full-attention layer attends to (causal, or DeepSeek sparse
// attention's top-k). The compute, memory and speed models share these.
#pragma once

#include "params/model_shape.h"

namespace openrecipes {

/// Layers of `model` that hold more than one mixer: (softmax-attention + Gated DeltaNet +
/// Mamba-2 layers) - layers, at least 0. A parallel hybrid (Falcon-H1: attention and Mamba-2 on
/// the same normed input, their outputs summed;
/// `transformers/models/falcon_h1/modeling_falcon_h1.py` FalconH1DecoderLayer) has one such layer
/// per layer; a sequential hybrid (Nemotron-H, Qwen3-Next) has none.
double parallel_mixer_layers(const ModelShape& model);

/// Blocks per average decoder layer: the layers holding a mixer (parallel mixers counted once)
/// plus the layers holding an MLP (dense or MoE), over `layers`. 2 for a transformer (attention
/// and MLP in every layer), 1 for Nemotron-H (each layer a mixer or an MLP), 0 when layers is 0.
/// Each block runs one norm, one residual add and, with TP and SP, one all-gather and one
/// reduce-scatter per pass (Korthikanti et al. 2022, arXiv:2205.05198, sec. 4.2.2).
double blocks_per_layer(const ModelShape& model);

/// Mean keys one query of a full (not sliding-window) softmax-attention layer attends to, on
/// rows of `row_tokens` tokens (s). Causal: s / 2 (Megatron-LM's num_floating_point_operations).
/// With DeepSeek sparse attention (indexer_top_k = k > 0) a query at position i attends to
/// min(k, i + 1) keys (DeepSeek-AI 2025, DeepSeek-V3.2-Exp report, sec. 2.1): the mean over a row
/// is k - k^2 / (2s) when s > k, else s / 2.
double full_attention_keys(const ModelShape& model, double row_tokens);

/// Mean earlier keys the lightning indexer scores per query: every causal pair, s / 2 (the
/// indexer scores all preceding tokens; DeepSeek-V3.2-Exp report, sec. 2.1). 0 without an
/// indexer.
double indexer_keys(const ModelShape& model, double row_tokens);

/// True when `model` has DeepSeek sparse attention (an indexer with heads and a top-k).
bool has_sparse_attention(const ModelShape& model);

/// Weights per average decoder layer that every TP rank holds whole: the sparse-attention indexer's
/// projections (Megatron-Core DSAIndexer builds them with parallel_mode="duplicated",
/// megatron/core/transformer/experimental_attention_variant/dsa.py), attention_layers x
/// indexer_params / layers. Part of ModelShape::dense_params_per_layer, which the planner divides
/// by TP; this share it does not.
double tp_duplicated_params_per_layer(const ModelShape& model);

/// Mamba-2 inner width d_inner = heads x head_dim (Megatron-Core MambaMixer, d_inner = nheads x
/// headdim; megatron/core/ssm/mamba_mixer.py).
double mamba_inner(const ModelShape& model);

/// Mamba-2 in_proj outputs: z and x (2 d_inner), B and C (2 x groups x d_state) and dt (heads)
/// (MambaMixer.in_proj, megatron/core/ssm/mamba_mixer.py).
double mamba_in_proj_outputs(const ModelShape& model);

/// Channels of Mamba-2's depthwise convolution: x, B and C (d_inner + 2 x groups x d_state).
double mamba_conv_channels(const ModelShape& model);

}  // namespace openrecipes
