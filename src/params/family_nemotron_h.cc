#include "params/family_nemotron_h.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "params/mamba2_mixer.h"
#include "params/param_blocks.h"

namespace openrecipes {
namespace {

// The one part a nemotron_h layer holds (NemotronHBlock: one mixer per layer).
enum class Block { kMamba, kAttention, kMlp, kMoe };

// The layer kinds of `hybrid_override_pattern` (empty when absent or bad; problems go to `c`).
std::vector<Block> blocks_of_pattern(const HfConfig& c) {
  std::vector<Block> blocks;
  std::string pattern = c.string_or("hybrid_override_pattern", "");
  if (!pattern.empty()) {
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      switch (pattern[i]) {
        case 'M':
          blocks.push_back(Block::kMamba);
          break;
        case '*':
          blocks.push_back(Block::kAttention);
          break;
        case '-':
          blocks.push_back(Block::kMlp);
          break;
        case 'E':
          blocks.push_back(Block::kMoe);
          break;
        default:
          c.report("hybrid_override_pattern", "unknown layer kind",
                   "M (Mamba-2), * (attention), - (MLP) or E (MoE)",
                   static_cast<unsigned char>(pattern[i]) < 0x80
                       ? fmt::format("'{}' at layer {}", pattern[i], i)
                       : fmt::format("a non-ASCII character at layer {}", i));
          return {};
      }
    }
    return blocks;
  }
  return {};
}

// The layer kinds of `layers_block_type` (empty when absent or bad; problems go to `c`).
std::vector<Block> blocks_of_types(const HfConfig& c) {
  std::vector<Block> blocks;
  std::vector<std::string> types = c.strings("layers_block_type");
  for (std::size_t i = 0; i < types.size(); ++i) {
    const std::string& t = types[i];
    // transformers' legacy names (mamba, attention) and its current ones (linear_attention,
    // full_attention) name the same mixers (configuration_nemotron_h.py).
    if (t == "mamba" || t == "linear_attention") {
      blocks.push_back(Block::kMamba);
    } else if (t == "attention" || t == "full_attention") {
      blocks.push_back(Block::kAttention);
    } else if (t == "mlp") {
      blocks.push_back(Block::kMlp);
    } else if (t == "moe") {
      blocks.push_back(Block::kMoe);
    } else {
      c.report("layers_block_type", "unknown layer kind",
               "mamba, attention, mlp or moe (or linear_attention, full_attention)",
               fmt::format("\"{}\" at layer {}", t, i));
      return {};
    }
  }
  return blocks;
}

// The layer kinds, from hybrid_override_pattern or layers_block_type; when a config has both they
// must agree. Empty, with problems on `c`, when neither gives them.
std::vector<Block> read_blocks(const HfConfig& c) {
  std::vector<Block> pattern = blocks_of_pattern(c);
  std::vector<Block> types = c.has("layers_block_type") ? blocks_of_types(c) : std::vector<Block>{};
  if (!c.problems().empty()) return {};
  if (pattern.empty() && types.empty()) {
    c.report("hybrid_override_pattern", "missing required field",
             "one of M, *, - and E per layer (or a layers_block_type list)", "nothing");
    return {};
  }
  if (!pattern.empty() && !types.empty() && pattern != types) {
    std::size_t layer = 0;
    while (layer < pattern.size() && layer < types.size() && pattern[layer] == types[layer])
      ++layer;
    c.report("layers_block_type", "disagrees with hybrid_override_pattern",
             fmt::format("the pattern's {} layers, kind for kind", pattern.size()),
             fmt::format("{} layers, the first difference at layer {}", types.size(), layer));
    return {};
  }
  return pattern.empty() ? types : pattern;
}

// `blocks` in Megatron-LM's --hybrid-override-pattern letters (the config's own symbols).
std::string pattern_of(const std::vector<Block>& blocks) {
  std::string pattern;
  for (Block block : blocks) {
    pattern += block == Block::kMamba       ? 'M'
               : block == Block::kAttention ? '*'
               : block == Block::kMlp       ? '-'
                                            : 'E';
  }
  return pattern;
}

// How many layers of `kind` `blocks` has.
std::int64_t count_of(const std::vector<Block>& blocks, Block kind) {
  return std::count(blocks.begin(), blocks.end(), kind);
}

// The MoE sizes of a nemotron_h config.
struct MoeSizes {
  std::int64_t experts = 0, top_k = 0, expert_ffn = 0, shared_ffn = 0, latent = 0;
};

}  // namespace

std::optional<FamilyModel> read_nemotron_h(const HfConfig& c, Problems& problems) {
  auto fail = [&]() -> std::optional<FamilyModel> {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  };
  std::vector<Block> blocks = read_blocks(c);
  if (blocks.empty()) return fail();
  const std::string pattern_field =
      c.has("hybrid_override_pattern") ? "hybrid_override_pattern" : "layers_block_type";
  Shape s;
  s.hidden = c.integer("hidden_size");
  s.vocab = c.integer("vocab_size");
  // num_hidden_layers is deprecated in newer configs (the pattern's length is the layer count);
  // when given it must agree.
  s.layers =
      c.integer_or("num_hidden_layers", static_cast<std::int64_t>(blocks.size()), 1, 100'000);
  if (c.problems().empty() && static_cast<std::int64_t>(blocks.size()) != s.layers) {
    c.report(pattern_field, "the layer pattern must give one kind per layer",
             fmt::format("{} layers (num_hidden_layers)", s.layers),
             fmt::format("{} layers", blocks.size()));
  }
  if (!c.problems().empty()) return fail();

  const std::int64_t mamba_layers = count_of(blocks, Block::kMamba);
  const std::int64_t attention_layers = count_of(blocks, Block::kAttention);
  const std::int64_t mlp_layers = count_of(blocks, Block::kMlp);
  const std::int64_t moe_layers = count_of(blocks, Block::kMoe);

  // Mamba-2 (NemotronHMamba2Mixer: d_inner = mamba_num_heads x mamba_head_dim; `expand` is not
  // read by the mixer).
  Mamba2Sizes m;
  if (mamba_layers > 0) {
    m.heads = c.integer("mamba_num_heads", 1, 4096);
    m.head_dim = c.integer("mamba_head_dim", 1, 4096);
    m.groups = c.integer("n_groups", 1, 4096);
    m.state = c.integer("ssm_state_size", 1, 4096);
    m.kernel = c.integer("conv_kernel", 1, 64);
    m.inner = m.heads * m.head_dim;
    if (c.problems().empty() && m.heads % m.groups != 0) {
      c.report("n_groups", "the B/C groups must divide the Mamba heads",
               fmt::format("a divisor of {} (mamba_num_heads)", m.heads),
               fmt::format("{}", m.groups));
    }
  }
  // Attention (NemotronHAttention, Jamba's: q, k, v and o without an output gate).
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0;
  BlockParams attention{0, ""};
  if (attention_layers > 0) {
    heads = c.integer("num_attention_heads", 1, 4096);
    kv_heads = c.integer_or("num_key_value_heads", heads, 1, 4096);
    head_dim = c.has("head_dim") ? c.integer("head_dim", 1, 4096)
                                 : s.hidden / std::max<std::int64_t>(heads, 1);
    attention = gqa(c, s, false);
    if (c.problems().empty() && heads % kv_heads != 0) {
      c.report("num_key_value_heads", "key/value heads must divide the attention heads",
               fmt::format("a divisor of {}", heads), fmt::format("{}", kv_heads));
    }
  }
  // Squared-ReLU MLP (NemotronHMLP: up and down, no gate).
  std::int64_t dense_ffn = mlp_layers > 0 ? c.integer("intermediate_size") : 0;
  // MoE (NemotronHMoE: top-k of the routed experts, one shared expert, the router; with
  // moe_latent_size, the experts work in a latent width between fc1 and fc2 projections).
  MoeSizes moe;
  if (moe_layers > 0) {
    moe.experts = c.integer("n_routed_experts", 1, 65536);
    moe.top_k = c.integer("num_experts_per_tok", 1, 65536);
    moe.expert_ffn = c.integer("moe_intermediate_size");
    moe.shared_ffn = c.integer_or("moe_shared_expert_intermediate_size", 0, 0);
    moe.latent = c.integer_or("moe_latent_size", 0, 0);
    if (c.problems().empty() && moe.top_k > moe.experts) {
      c.report("num_experts_per_tok", "more experts per token than experts",
               fmt::format("at most {} (n_routed_experts)", moe.experts),
               fmt::format("{}", moe.top_k));
    }
  }
  const std::int64_t mtp = c.integer_or("num_nextn_predict_layers", 0, 0, 64);
  const bool tied = c.boolean_or("tie_word_embeddings", false);
  if (!c.problems().empty()) return fail();

  const BlockParams mamba = mamba_layers > 0 ? mamba2_mixer(s.hidden, m) : BlockParams{0, ""};
  const std::int64_t expert_width = moe.latent > 0 ? moe.latent : s.hidden;
  const std::int64_t one_expert = 2 * expert_width * moe.expert_ffn;
  const std::int64_t latent_proj = moe.latent > 0 ? 2 * s.hidden * moe.latent : 0;
  // The latent projections are dense (every token of an MoE layer passes them): counted with the
  // shared expert, the MoE layer's other dense part, so that a routed expert stays one expert.
  const std::int64_t shared = 2 * s.hidden * moe.shared_ffn + latent_proj;

  Tally tally;
  for (Block block : blocks) {
    switch (block) {
      case Block::kMamba:
        tally.add("mamba", mamba.first, mamba.second);
        break;
      case Block::kAttention:
        tally.add("attention", attention.first, attention.second);
        break;
      case Block::kMlp:
        tally.add("dense MLP", 2 * s.hidden * dense_ffn,
                  fmt::format("up {} and down {} (squared ReLU, no gate)",
                              dims(s.hidden, dense_ffn), dims(dense_ffn, s.hidden)));
        break;
      case Block::kMoe:
        tally.add(
            "routed experts", moe.top_k * one_expert,
            fmt::format("top-{} of {} experts, each up {} and down {}", moe.top_k, moe.experts,
                        dims(expert_width, moe.expert_ffn), dims(moe.expert_ffn, expert_width)));
        if (shared > 0) {
          tally.add("shared experts", shared,
                    fmt::format("up {} and down {}{}", dims(s.hidden, moe.shared_ffn),
                                dims(moe.shared_ffn, s.hidden),
                                moe.latent > 0 ? fmt::format(" + latent fc1 {} and fc2 {}",
                                                             dims(s.hidden, moe.latent),
                                                             dims(moe.latent, s.hidden))
                                               : ""));
        }
        tally.add("router", s.hidden * moe.experts, dims(s.hidden, moe.experts));
        break;
    }
  }
  tally.add("output layer", s.vocab * s.hidden, dims(s.hidden, s.vocab));

  FamilyModel model;
  model.count.model_type = "nemotron_h";
  model.count.components = tally.take();
  std::optional<std::int64_t> n = sum_components(model.count.components, c, problems);
  if (!n) return std::nullopt;
  model.count.active_params = *n;
  model.count.left_out = {"input embedding", "norms", "biases"};
  if (mamba_layers > 0) model.count.left_out.push_back("A_log, D and dt_bias");
  if (mtp > 0) model.count.left_out.push_back(mtp_layers_left_out(mtp));

  model.shape = shape_base(model.count, s, tied);
  ModelShape& shape = model.shape;
  shape.mtp_layers = static_cast<int>(mtp);
  shape.attention_heads = static_cast<int>(heads);
  shape.kv_heads = static_cast<int>(kv_heads);
  shape.head_dim = static_cast<int>(head_dim);
  shape.attention_layers = static_cast<int>(attention_layers);
  shape.attention_params = attention.first;
  shape.mamba_layers = static_cast<int>(mamba_layers);
  shape.mamba_heads = static_cast<int>(m.heads);
  shape.mamba_head_dim = static_cast<int>(m.head_dim);
  shape.mamba_groups = static_cast<int>(m.groups);
  shape.mamba_state_size = static_cast<int>(m.state);
  shape.mamba_conv_kernel = static_cast<int>(m.kernel);
  shape.hybrid_layer_pattern = pattern_of(blocks);
  shape.mamba_params = mamba.first;
  shape.gated_mlp = false;
  shape.dense_mlp_layers = static_cast<int>(mlp_layers);
  shape.dense_ffn_hidden_size = static_cast<int>(dense_ffn);
  shape.dense_mlp_params = 2 * s.hidden * dense_ffn;
  shape.moe_layers = static_cast<int>(moe_layers);
  shape.experts = static_cast<int>(moe.experts);
  shape.experts_per_token = static_cast<int>(moe.top_k);
  shape.expert_ffn_hidden_size = static_cast<int>(moe.expert_ffn);
  shape.shared_expert_ffn_hidden_size = static_cast<int>(moe.shared_ffn);
  shape.expert_params = moe_layers > 0 ? one_expert : 0;
  shape.shared_expert_params = moe_layers > 0 ? shared : 0;
  shape.router_params = moe_layers > 0 ? s.hidden * moe.experts : 0;
  return model;
}

}  // namespace openrecipes
