#include "params/family_dsa.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "params/layer_list.h"

namespace openrecipes {
namespace {

// What the config says about its layers: which have routed experts and which run an indexer.
struct LayerKinds {
  std::vector<bool> moe, indexer;
};

// Routed-expert layers (mlp_layer_types, else DeepSeek-V3's first_k_dense_replace and
// moe_layer_freq) and indexer layers (indexer_types, else GlmMoeDsaConfig's schedule: layer i runs
// its own indexer when max(i - offset + 1, 0) is a multiple of index_topk_freq).
std::optional<LayerKinds> read_layer_kinds(const HfConfig& c, std::int64_t layers,
                                           Problems& problems) {
  LayerKinds kinds;
  std::optional<std::vector<std::string>> mlp_list =
      read_layer_list(c, "mlp_layer_types", layers, {"dense", "sparse"}, problems);
  if (!mlp_list) return std::nullopt;
  std::optional<std::vector<std::string>> indexer_list =
      read_layer_list(c, "indexer_types", layers, {"full", "shared"}, problems);
  if (!indexer_list) return std::nullopt;
  const std::vector<std::string>& mlp_types = *mlp_list;
  const std::vector<std::string>& indexer_types = *indexer_list;
  std::int64_t first_dense = c.integer_or("first_k_dense_replace", 0, 0, layers);
  std::int64_t moe_frequency = c.integer_or("moe_layer_freq", 1, 1, layers);
  std::int64_t index_frequency = c.integer_or("index_topk_freq", 1, 1, layers);
  std::int64_t index_offset = c.integer_or("index_skip_topk_offset", 2, 0, layers);
  if (indexer_types.empty() && c.has("index_topk_pattern")) {
    problems.push_back(c.problem_at("index_topk_pattern", "the indexer pattern is not read",
                                    "indexer_types, a list of \"full\" or \"shared\" per layer",
                                    "a pattern"));
    return std::nullopt;
  }
  for (std::int64_t i = 0; i < layers; ++i) {
    auto at = static_cast<std::size_t>(i);
    kinds.moe.push_back(mlp_types.empty() ? i >= first_dense && i % moe_frequency == 0
                                          : mlp_types[at] == "sparse");
    kinds.indexer.push_back(
        indexer_types.empty()
            ? std::max<std::int64_t>(i - index_offset + 1, 0) % index_frequency == 0
            : indexer_types[at] == "full");
  }
  if (!kinds.indexer.empty() && !kinds.indexer[0]) {
    problems.push_back(c.problem_at(
        indexer_types.empty() ? "index_skip_topk_offset" : "indexer_types[0]",
        "the first layer shares an indexer no earlier layer has", "\"full\"", "\"shared\""));
    return std::nullopt;
  }
  return kinds;
}

// The MLP sizes: routed experts, shared experts (n_shared_experts of the expert size, no gate;
// modeling_deepseek_v32.py's DeepseekV32MoE) and the dense MLP where a layer has one.
struct Experts {
  std::int64_t experts = 0, top_k = 0, ffn = 0, shared_ffn = 0, dense_ffn = 0;
};

Experts read_experts(const HfConfig& c, const LayerKinds& kinds) {
  Experts e;
  e.experts = c.integer("n_routed_experts", 1, 65536);
  // Top-k is bounded by the experts, so that too many is named at its own line.
  e.top_k = c.integer("num_experts_per_tok", 1, e.experts);
  e.ffn = c.integer("moe_intermediate_size");
  e.shared_ffn = c.integer_or("n_shared_experts", 0, 0, 64) * e.ffn;
  if (std::find(kinds.moe.begin(), kinds.moe.end(), false) != kinds.moe.end())
    e.dense_ffn = c.integer("intermediate_size");
  return e;
}

}  // namespace

BlockParams lightning_indexer(const HfConfig& c, const Shape& s) {
  std::int64_t heads = c.integer("index_n_heads", 1, 4096);
  std::int64_t head_dim = c.integer("index_head_dim", 1, 4096);
  // The indexer's query is projected from MLA's compressed query, so q-LoRA is required here.
  std::int64_t q_lora = c.integer("q_lora_rank");
  std::int64_t wq_b = q_lora * heads * head_dim;
  std::int64_t wk = s.hidden * head_dim;
  std::int64_t weights_proj = s.hidden * heads;
  return {wq_b + wk + weights_proj,
          fmt::format("wq_b {} + wk {} + weights_proj {}", dims(q_lora, heads * head_dim),
                      dims(s.hidden, head_dim), dims(s.hidden, heads))};
}

std::optional<FamilyModel> read_sparse_attention_model(const HfConfig& c, Problems& problems) {
  auto finish_with_problems = [&]() -> std::optional<FamilyModel> {
    problems.insert(problems.end(), c.problems().begin(), c.problems().end());
    return std::nullopt;
  };
  const std::size_t before = problems.size();
  Shape s{c.integer("hidden_size"), c.integer("num_hidden_layers", 1, 100'000),
          c.integer("vocab_size")};
  if (!c.problems().empty()) return finish_with_problems();
  std::optional<LayerKinds> kinds = read_layer_kinds(c, s.layers, problems);
  if (!kinds) return finish_with_problems();
  Experts e = read_experts(c, *kinds);
  BlockParams attention = mla(c, s);
  BlockParams indexer = lightning_indexer(c, s);
  std::int64_t mtp = c.integer_or("num_nextn_predict_layers", 0, 0, 64);
  std::int64_t index_topk = c.integer("index_topk");
  if (!c.problems().empty() || problems.size() != before) return finish_with_problems();

  const std::int64_t expert = gated_mlp(s.hidden, e.ffn);
  const std::int64_t shared = gated_mlp(s.hidden, e.shared_ffn);
  const std::int64_t dense = gated_mlp(s.hidden, e.dense_ffn);
  Tally tally;
  for (std::int64_t i = 0; i < s.layers; ++i) {
    auto at = static_cast<std::size_t>(i);
    tally.add("attention", attention.first, attention.second);
    if (kinds->indexer[at]) tally.add("indexer", indexer.first, indexer.second);
    if (kinds->moe[at]) {
      tally.add("routed experts", e.top_k * expert,
                fmt::format("top-{} of {} experts, each gate+up {} and down {}", e.top_k, e.experts,
                            dims(s.hidden, 2 * e.ffn), dims(e.ffn, s.hidden)));
      if (e.shared_ffn > 0) {
        tally.add("shared experts", shared,
                  fmt::format("gate+up {} and down {}", dims(s.hidden, 2 * e.shared_ffn),
                              dims(e.shared_ffn, s.hidden)));
      }
      tally.add("router", s.hidden * e.experts, dims(s.hidden, e.experts));
    } else {
      tally.add("dense MLP", dense,
                fmt::format("gate+up {} and down {}", dims(s.hidden, 2 * e.dense_ffn),
                            dims(e.dense_ffn, s.hidden)));
    }
  }
  tally.add("output layer", s.vocab * s.hidden, dims(s.hidden, s.vocab));

  FamilyModel model;
  model.count.model_type = c.model_type();
  model.count.components = tally.take();
  std::optional<std::int64_t> total = sum_components(model.count.components, c, problems);
  if (!total) return std::nullopt;
  model.count.active_params = *total;
  model.count.left_out = {"input embedding", "norms", "biases"};
  if (mtp > 0) model.count.left_out.push_back(mtp_layers_left_out(mtp));

  model.shape = shape_base(model.count, s, c.boolean_or("tie_word_embeddings", false));
  ModelShape& shape = model.shape;
  shape.mtp_layers = static_cast<int>(mtp);
  read_mla_attention(c, shape);
  shape.attention_layers = shape.layers;
  shape.attention_params = attention.first;
  const auto indexer_layers = std::count(kinds->indexer.begin(), kinds->indexer.end(), true);
  shape.indexer_heads = static_cast<int>(c.integer("index_n_heads", 1, 4096));
  shape.indexer_head_dim = static_cast<int>(c.integer("index_head_dim", 1, 4096));
  shape.indexer_top_k = static_cast<int>(index_topk);
  // ModelShape holds the indexer per attention layer: layers that share an earlier layer's
  // indexer have none of their own, so the per-layer figure is the average (exact when every
  // layer runs its own, as in DeepSeek-V3.2 and GLM-5).
  shape.indexer_params = indexer.first * indexer_layers / s.layers;
  const auto moe_layers = std::count(kinds->moe.begin(), kinds->moe.end(), true);
  shape.moe_layers = static_cast<int>(moe_layers);
  shape.dense_mlp_layers = static_cast<int>(s.layers - moe_layers);
  if (shape.dense_mlp_layers > 0) {
    shape.dense_ffn_hidden_size = static_cast<int>(e.dense_ffn);
    shape.dense_mlp_params = dense;
  }
  if (moe_layers > 0) {
    shape.experts = static_cast<int>(e.experts);
    shape.experts_per_token = static_cast<int>(e.top_k);
    shape.expert_ffn_hidden_size = static_cast<int>(e.ffn);
    shape.expert_params = expert;
    shape.shared_expert_ffn_hidden_size = static_cast<int>(e.shared_ffn);
    shape.shared_expert_params = shared;
    shape.router_params = s.hidden * e.experts;
  }
  return model;
}

}  // namespace openrecipes
