#include "plan/layer_parts.h"

#include <algorithm>

namespace openrecipes {

double parallel_mixer_layers(const ModelShape& m) {
  const double mixers =
      static_cast<double>(m.attention_layers) + m.linear_attention_layers + m.mamba_layers;
  return std::max(0.0, mixers - m.layers);
}

double blocks_per_layer(const ModelShape& m) {
  if (m.layers <= 0) return 0;
  const double mixers = static_cast<double>(m.attention_layers) + m.linear_attention_layers +
                        m.mamba_layers - parallel_mixer_layers(m);
  const double mlps = static_cast<double>(m.dense_mlp_layers) + m.moe_layers;
  return (mixers + mlps) / m.layers;
}

bool has_sparse_attention(const ModelShape& m) {
  return m.indexer_heads > 0 && m.indexer_head_dim > 0 && m.indexer_top_k > 0;
}

double full_attention_keys(const ModelShape& m, double s) {
  if (!has_sparse_attention(m) || s <= m.indexer_top_k) return s / 2;
  const double k = m.indexer_top_k;
  return k - k * k / (2 * s);
}

double indexer_keys(const ModelShape& m, double s) { return has_sparse_attention(m) ? s / 2 : 0; }

double tp_duplicated_params_per_layer(const ModelShape& m) {
  if (m.layers <= 0) return 0;
  return static_cast<double>(m.attention_layers) * static_cast<double>(m.indexer_params) / m.layers;
}

double mamba_inner(const ModelShape& m) {
  return static_cast<double>(m.mamba_heads) * m.mamba_head_dim;
}

double mamba_in_proj_outputs(const ModelShape& m) {
  return 2 * mamba_inner(m) + 2.0 * m.mamba_groups * m.mamba_state_size + m.mamba_heads;
}

double mamba_conv_channels(const ModelShape& m) {
  return mamba_inner(m) + 2.0 * m.mamba_groups * m.mamba_state_size;
}

}  // namespace openrecipes
