#include "params/family_falcon_h1.h"

#include <fmt/format.h>

#include <algorithm>

#include "params/mamba2_mixer.h"
#include "params/param_blocks.h"

namespace openrecipes {
namespace {}  // namespace

std::optional<FamilyModel> read_falcon_h1(const HfConfig& c, Problems& problems) {
  auto fail = [&]() -> std::optional<FamilyModel> {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  };
  Shape s{c.integer("hidden_size"), c.integer("num_hidden_layers", 1, 100'000),
          c.integer("vocab_size")};
  if (!c.problems().empty()) return fail();

  // Attention (FalconH1Attention, Llama's q, k, v and o; key_multiplier is a scalar).
  const std::int64_t heads = c.integer("num_attention_heads", 1, 4096);
  const std::int64_t kv_heads = c.integer_or("num_key_value_heads", heads, 1, 4096);
  const std::int64_t head_dim = c.has("head_dim") ? c.integer("head_dim", 1, 4096)
                                                  : s.hidden / std::max<std::int64_t>(heads, 1);
  const BlockParams attention = gqa(c, s, false);

  // Mamba-2 (FalconH1Mixer: d_inner = mamba_d_ssm, or mamba_expand x hidden when it is None;
  // the mixer views d_inner as mamba_n_heads x mamba_d_head).
  Mamba2Sizes m;
  m.heads = c.integer("mamba_n_heads", 1, 4096);
  m.inner = c.has("mamba_d_ssm") ? c.integer("mamba_d_ssm")
                                 : c.integer_or("mamba_expand", 2, 1, 64) * s.hidden;
  m.head_dim = c.integer_or("mamba_d_head", m.inner / std::max<std::int64_t>(m.heads, 1), 1, 4096);
  m.groups = c.integer("mamba_n_groups", 1, 4096);
  m.state = c.integer("mamba_d_state", 1, 4096);
  m.kernel = c.integer("mamba_d_conv", 1, 64);

  // Gated MLP (FalconH1MLP: gate, up and down; mlp_multipliers are scalars).
  const std::int64_t ffn = c.integer("intermediate_size");
  const bool tied = c.boolean_or("tie_word_embeddings", false);
  if (!c.problems().empty()) return fail();

  if (m.heads * m.head_dim != m.inner) {
    c.report(c.has("mamba_d_head") ? "mamba_d_head" : "mamba_n_heads",
             "the Mamba heads must tile d_inner (mamba_n_heads x mamba_d_head = mamba_d_ssm)",
             fmt::format("mamba_n_heads x mamba_d_head = {}", m.inner),
             fmt::format("{} x {} = {}", m.heads, m.head_dim, m.heads * m.head_dim));
  }
  if (m.heads % m.groups != 0) {
    c.report("mamba_n_groups", "the B/C groups must divide the Mamba heads",
             fmt::format("a divisor of {} (mamba_n_heads)", m.heads), fmt::format("{}", m.groups));
  }
  if (heads % kv_heads != 0) {
    c.report("num_key_value_heads", "key/value heads must divide the attention heads",
             fmt::format("a divisor of {}", heads), fmt::format("{}", kv_heads));
  }
  if (!c.problems().empty()) return fail();

  const BlockParams mamba = mamba2_mixer(s.hidden, m);
  const std::int64_t mlp = gated_mlp(s.hidden, ffn);
  Tally tally;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    tally.add("attention", attention.first, attention.second);
    tally.add("mamba", mamba.first, mamba.second);
    tally.add("dense MLP", mlp,
              fmt::format("gate+up {} and down {}", dims(s.hidden, 2 * ffn), dims(ffn, s.hidden)));
  }
  tally.add("output layer", s.vocab * s.hidden, dims(s.hidden, s.vocab));

  FamilyModel model;
  model.count.model_type = "falcon_h1";
  model.count.components = tally.take();
  std::optional<std::int64_t> n = sum_components(model.count.components, c, problems);
  if (!n) return std::nullopt;
  model.count.active_params = *n;
  model.count.left_out = {"input embedding", "norms", "biases", "A_log, D and dt_bias",
                          "muP multipliers (scalars)"};

  model.shape = shape_base(model.count, s, tied);
  ModelShape& shape = model.shape;
  shape.attention_heads = static_cast<int>(heads);
  shape.kv_heads = static_cast<int>(kv_heads);
  shape.head_dim = static_cast<int>(head_dim);
  shape.attention_layers = static_cast<int>(s.layers);
  shape.attention_params = attention.first;
  shape.mamba_layers = static_cast<int>(s.layers);
  shape.mamba_heads = static_cast<int>(m.heads);
  shape.mamba_head_dim = static_cast<int>(m.head_dim);
  shape.mamba_groups = static_cast<int>(m.groups);
  shape.mamba_state_size = static_cast<int>(m.state);
  shape.mamba_conv_kernel = static_cast<int>(m.kernel);
  shape.mamba_params = mamba.first;
  shape.gated_mlp = true;
  shape.dense_mlp_layers = static_cast<int>(s.layers);
  shape.dense_ffn_hidden_size = static_cast<int>(ffn);
  shape.dense_mlp_params = mlp;
  return model;
}

}  // namespace openrecipes
