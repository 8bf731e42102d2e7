#include "layout/layout_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "figures/figures.h"
#include "layout/pipeline_layout.h"
#include "layout/pipeline_stages.h"

namespace openrecipes {
namespace {

// What a broken rule says, built only when someone asks (the planner checks millions of layouts).
struct Details {
  std::string field, message, expected, found;
};

// The rules, in groups. Each group calls `report(rule, details)` for each rule it finds broken,
// `details` a callable returning Details, and returns false as soon as `report` does (the caller
// stops there).

// Checks that every size is at least 1; returns false when one is not (the other rules divide by
// them), whatever `report` returns.
template <class Report>
bool sizes_rule(const ClusterShape& c, const Layout& l, Report& report) {
  if (l.tp < 1 || l.pp < 1 || l.vpp < 1 || l.cp < 1 || l.ep < 1 || l.etp < 1 ||
      l.rows_per_microbatch < 1 || l.max_tokens_per_gpu < 1 || c.gpus < 1 || c.per_node < 1) {
    report(LayoutRule::kSizes, [&] {
      return Details{
          "layout", "every parallel size, the GPU count and the micro-batch must be at least 1",
          ">= 1",
          fmt::format(
              "tp {} pp {} vpp {} cp {} ep {} etp {} gpus {} per_node {} rows/micro-batch {} "
              "max_tokens_per_gpu {}",
              l.tp, l.pp, l.vpp, l.cp, l.ep, l.etp, c.gpus, c.per_node, l.rows_per_microbatch,
              l.max_tokens_per_gpu)};
    });
    return false;
  }
  return true;
}

// Checks the dense mesh (DP = `dp`), TP against the heads and the node, and sequence parallelism.
template <class Report>
bool dense_mesh_rules(const ModelShape& m, const ClusterShape& c, const Layout& l, int dp,
                      Report& report) {
  if (dp == 0 && !report(LayoutRule::kDenseMesh, [&] {
        return Details{"layout", "TP x PP x CP must divide the GPU count (DP = W / (TP x PP x CP))",
                       fmt::format("a divisor of {}", c.gpus),
                       fmt::format("{} x {} x {} = {}", l.tp, l.pp, l.cp,
                                   static_cast<long long>(l.tp) * l.pp * l.cp)};
      })) {
    return false;
  }
  // Mamba-2: MambaMixer asserts that TP divides nheads and ngroups (and so d_inner)
  // (megatron/core/ssm/mamba_mixer.py).
  const bool mamba = m.mamba_layers > 0;
  if ((m.kv_heads > 0 && m.kv_heads % l.tp != 0) ||
      (m.linear_key_heads > 0 && m.linear_key_heads % l.tp != 0) ||
      (m.linear_value_heads > 0 && m.linear_value_heads % l.tp != 0) ||
      (mamba && m.mamba_heads > 0 && m.mamba_heads % l.tp != 0) ||
      (mamba && m.mamba_groups > 0 && m.mamba_groups % l.tp != 0)) {
    if (!report(LayoutRule::kTpHeads, [&] {
          std::string heads = fmt::format("{} KV heads", m.kv_heads);
          if (m.linear_key_heads > 0) {
            heads += fmt::format(", {} linear-attention key heads and {} value heads",
                                 m.linear_key_heads, m.linear_value_heads);
          }
          if (mamba) {
            heads += fmt::format(", {} Mamba-2 heads and {} Mamba-2 groups", m.mamba_heads,
                                 m.mamba_groups);
          }
          return Details{"layout.tp", fmt::format("TP must divide {}'s {}", m.name, heads),
                         "a common divisor", fmt::format("{}", l.tp)};
        })) {
      return false;
    }
  }
  if ((c.per_node % l.tp != 0 || c.per_node % l.etp != 0) && !report(LayoutRule::kTpNode, [&] {
        return Details{c.per_node % l.tp != 0 ? "layout.tp" : "layout.etp",
                       "TP and ETP must stay within one node (divide the GPUs per node)",
                       fmt::format("a divisor of {}", c.per_node),
                       fmt::format("tp {}, etp {}", l.tp, l.etp)};
      })) {
    return false;
  }
  if (l.tp > 1 && !l.sequence_parallel && !report(LayoutRule::kSequenceParallel, [&] {
        return Details{"layout.sequence_parallel", "sequence parallelism must be on when TP > 1",
                       "true", "false"};
      })) {
    return false;
  }
  return true;
}

// Checks EP against the experts and the expert mesh.
template <class Report>
bool expert_rules(const ModelShape& m, const ClusterShape& c, const Layout& l, Report& report) {
  bool experts_ok = m.experts == 0 ? (l.ep == 1 && l.etp == 1) : m.experts % l.ep == 0;
  if (!experts_ok && !report(LayoutRule::kExperts, [&] {
        if (m.experts == 0) {
          return Details{"layout.ep", fmt::format("{} is dense: EP and ETP must be 1", m.name), "1",
                         fmt::format("ep {}, etp {}", l.ep, l.etp)};
        }
        return Details{"layout.ep",
                       fmt::format("EP must divide {}'s {} experts", m.name, m.experts),
                       fmt::format("a divisor of {}", m.experts), fmt::format("{}", l.ep)};
      })) {
    return false;
  }
  // ETP splits each expert's FFN over its ranks as TP splits a dense MLP: Megatron-Core's
  // column-parallel expert linear divides the FFN width by the ETP size and asserts that it
  // divides (divide() in megatron/core/utils.py, used by TEColumnParallelGroupedLinear).
  if (m.experts > 0 && l.etp > 1 && m.expert_ffn_hidden_size % l.etp != 0 &&
      !report(LayoutRule::kExperts, [&] {
        return Details{"layout.etp",
                       fmt::format("ETP must divide {}'s expert FFN width of {}", m.name,
                                   m.expert_ffn_hidden_size),
                       fmt::format("a divisor of {}", m.expert_ffn_hidden_size),
                       fmt::format("{}", l.etp)};
      })) {
    return false;
  }
  if (implied_expert_data_parallel(c, l) == 0 && !report(LayoutRule::kExpertMesh, [&] {
        return Details{"layout.ep",
                       "PP x EP x ETP must divide the GPU count (expert DP = W / (PP x EP x ETP))",
                       fmt::format("a divisor of {}", c.gpus),
                       fmt::format("{} x {} x {} = {}", l.pp, l.ep, l.etp,
                                   static_cast<long long>(l.pp) * l.ep * l.etp)};
      })) {
    return false;
  }
  return true;
}

// The layout rule a placement check stands for.
LayoutRule placement_rule(PlacementRule rule) {
  switch (rule) {
    case PlacementRule::kExclusive:
      return LayoutRule::kPlacementExclusive;
    case PlacementRule::kLayout:
      return LayoutRule::kPipelineLayout;
    case PlacementRule::kLayers:
      return LayoutRule::kPipelineLayers;
    case PlacementRule::kVirtual:
      return LayoutRule::kVirtualPipeline;
  }
  return LayoutRule::kPipelineLayers;
}

// Checks that the layout's placement is one Megatron-LM accepts (place_layers: the forms it may
// combine, the string, the stages covering the layers, VPP dividing them).
template <class Report>
bool placement_rules(const ModelShape& m, const Layout& l, Report& report) {
  PlacementError error;
  error.words = false;
  if (placement_is_legal(m, l, &error)) return true;
  return report(placement_rule(error.rule), [&] {
    error.words = true;  // the check again, now with its words
    placement_is_legal(m, l, &error);
    return Details{error.field, error.message, error.expected, error.found};
  });
}

// True when Mamba-2's CP split is legal for `heads` and `groups` per TP rank on `cp` ranks
// (MambaContextParallel.__init__, megatron/core/ssm/mamba_context_parallel.py): CP divides the
// heads ("nheads must be evenly divisible by tp_size * cp_size"), and either divides the groups
// ("ngroups must be evenly divisible by tp_size * cp_size") or, with fewer groups than CP ranks, is
// a multiple of them (each group's state then replicated: "cp_size must be evenly divisible by
// ngroups/tp_size").
bool mamba_cp_ok(int heads, int groups, int cp) {
  if (heads < 1 || groups < 1 || heads % cp != 0) return false;
  return groups < cp ? cp % groups == 0 : groups % cp == 0;
}

// Checks that CP > 1 meets the layers' own context-parallel limits. Megatron-Core runs Gated
// DeltaNet under CP by an all-to-all from sequence to head parallelism (GatedDeltaNet.forward,
// tensor_a2a_cp2hp: each TP rank's key, value and gate heads split into cp_size parts), so CP must
// divide each TP rank's linear-attention key and value heads (megatron/core/ssm/gated_delta_net.py,
// NVIDIA/Megatron-LM; its earlier versions had no CP at all, "TODO: support CP"). Mamba-2 runs
// under CP the same way, with the limits of mamba_cp_ok. Softmax attention, sparse or not, has a
// CP implementation (the K/V ring; DeepSeek sparse attention's all-gather, DSAttention,
// megatron/core/transformer/experimental_attention_variant/dsa.py), so needs no rule here.
template <class Report>
bool cp_layer_rules(const ModelShape& m, const Layout& l, Report& report) {
  if (l.cp <= 1 || l.tp < 1) return true;
  if (m.linear_attention_layers > 0) {
    const int key_heads = m.linear_key_heads / l.tp;
    const int value_heads = m.linear_value_heads / l.tp;
    if ((key_heads % l.cp != 0 || value_heads % l.cp != 0) && !report(LayoutRule::kCpLayers, [&] {
          return Details{
              "layout.cp",
              fmt::format("{}'s Gated DeltaNet layers split their heads over CP: CP must divide "
                          "the {} key and {} value heads each TP rank holds",
                          m.name, key_heads, value_heads),
              fmt::format("a common divisor of {} and {}", key_heads, value_heads),
              fmt::format("{}", l.cp)};
        })) {
      return false;
    }
  }
  if (m.mamba_layers > 0) {
    const int heads = m.mamba_heads / l.tp;
    const int groups = m.mamba_groups / l.tp;
    if (!mamba_cp_ok(heads, groups, l.cp) && !report(LayoutRule::kCpLayers, [&] {
          return Details{
              "layout.cp",
              fmt::format("{}'s Mamba-2 layers split their heads over CP: CP must divide the {} "
                          "heads each TP rank holds, and divide its {} groups or be a multiple "
                          "of them",
                          m.name, heads, groups),
              fmt::format("a divisor of {} that divides {} or is a multiple of it", heads, groups),
              fmt::format("{}", l.cp)};
        })) {
      return false;
    }
  }
  return true;
}

// Checks the row's split over CP, the global batch over DP (`dp`) and micro-batches, and full
// recompute's num_layers.
template <class Report>
bool batch_rules(const ModelShape& m, const PlanWorkload& w, const Layout& l, int dp,
                 Report& report) {
  if (l.cp > 1 && w.row_tokens % (2 * l.cp) != 0 && !report(LayoutRule::kContextParallel, [&] {
        return Details{
            "layout.cp",
            "CP splits each row into 2 x CP equal chunks (load-balanced causal attention)",
            fmt::format("2 x cp dividing the row's {} tokens", w.row_tokens),
            fmt::format("{}", l.cp)};
      })) {
    return false;
  }
  if (!cp_layer_rules(m, l, report)) return false;
  long long rows_per_step = static_cast<long long>(dp) * l.rows_per_microbatch;
  if (dp > 0 && w.global_batch % rows_per_step != 0 && !report(LayoutRule::kGlobalBatch, [&] {
        return Details{"layout.rows_per_microbatch",
                       "the global batch must split evenly over DP ranks and micro-batches",
                       fmt::format("dp x rows_per_microbatch dividing {}", w.global_batch),
                       fmt::format("{} x {} = {}", dp, l.rows_per_microbatch, rows_per_step)};
      })) {
    return false;
  }
  if (l.recompute && l.recompute->granularity == "full" && l.recompute->num_layers) {
    // Megatron-LM counts recompute_num_layers within one virtual chunk of a stage: the smallest
    // stage bounds it.
    int chunk = smallest_chunk_layers(m, l);
    if ((*l.recompute->num_layers < 1 || *l.recompute->num_layers > chunk) &&
        !report(LayoutRule::kRecompute, [&] {
          return Details{
              "layout.recompute.num_layers",
              "full recompute's num_layers counts layers of one pipeline stage's virtual chunk",
              fmt::format("1 to {}", chunk), fmt::format("{}", *l.recompute->num_layers)};
        })) {
      return false;
    }
  }
  // Megatron-Core reads recompute_modules only with selective granularity
  // (TransformerConfig.__post_init__, megatron/core/transformer/transformer_config.py).
  if (l.recompute && l.recompute->granularity != "selective" && !l.recompute->modules.empty() &&
      !report(LayoutRule::kRecompute, [&] {
        return Details{"layout.recompute.modules",
                       "recompute modules name what selective recompute recomputes",
                       "no modules with " + l.recompute->granularity + " recompute",
                       fmt::format("{} module(s)", l.recompute->modules.size())};
      })) {
    return false;
  }
  return true;
}

// The A2A/1F1B overlap's preconditions, as Megatron-LM's validate_args asserts them for
// --overlap-moe-expert-parallel-comm (megatron/training/arguments.py): expert parallelism, the
// alltoall or flex dispatcher, no full recompute, and the interleaved schedule when pipelined.
template <class Report>
bool ep_a2a_overlap_rule(const PlanWorkload& w, const Layout& l, Report& report) {
  if (!w.ep_a2a_overlap) return true;
  auto broken = [&](std::string field, std::string expected, std::string found) {
    return !report(LayoutRule::kEpA2aOverlap, [&] {
      return Details{std::move(field),
                     "the EP all-to-all overlap (--overlap-moe-expert-parallel-comm) needs EP > 1, "
                     "the alltoall or flex dispatcher, no full recompute and VPP > 1 when PP > 1",
                     std::move(expected), std::move(found)};
    });
  };
  if (l.ep <= 1 && broken("layout.ep", "ep > 1", std::to_string(l.ep))) return false;
  if (l.dispatcher == "allgather" && broken("layout.dispatcher", "alltoall or flex", l.dispatcher))
    return false;
  if (l.recompute && l.recompute->granularity == "full" &&
      broken("layout.recompute", "none or selective", "full"))
    return false;
  if (l.pp > 1 && l.vpp <= 1 &&
      broken("layout.vpp", fmt::format("vpp > 1 with pp {}", l.pp), std::to_string(l.vpp)))
    return false;
  return true;
}

// The flex dispatcher (DeepEP / HybridEP) exchanges tokens over the TP x EP group and refuses a
// group of one: Megatron-Core's MoEFlexTokenDispatcher asserts TP x EP > 1
// (megatron/core/transformer/moe/token_dispatcher.py).
template <class Report>
bool flex_dispatcher_rule(const ModelShape& m, const Layout& l, Report& report) {
  if (!m.is_moe() || l.dispatcher != "flex" || l.tp * l.ep > 1) return true;
  return report(LayoutRule::kFlexDispatcher, [&] {
    return Details{"layout.dispatcher", "the flex dispatcher needs TP x EP > 1",
                   "alltoall or allgather with TP x EP = 1",
                   fmt::format("flex with TP {} x EP {}", l.tp, l.ep)};
  });
}

// TP communication overlap at TP 1: Megatron-LM's validate_args (megatron/training/arguments.py)
// turns sequence parallelism off when TP is 1, then asserts "Tensor parallel communication/GEMM
// overlap can happen only when sequence parallelism is enabled" for --tp-comm-overlap.
template <class Report>
bool tp_comm_overlap_rule(const PlanWorkload& w, const Layout& l, Report& report) {
  if (!w.tp_comm_overlap || l.tp > 1) return true;
  return report(LayoutRule::kTpCommOverlap, [&] {
    return Details{"layout.tp",
                   "TP communication overlap (--tp-comm-overlap) needs TP > 1, where sequence "
                   "parallelism is on",
                   "tp > 1, or the run without --tp-comm-overlap", std::to_string(l.tp)};
  });
}

// The shared-expert overlap (--moe-shared-expert-overlap), as Megatron-Core's
// TransformerConfig.__post_init__ (megatron/core/transformer/transformer_config.py) refuses it:
// with shared experts, "moe_shared_expert_overlap only works with alltoall token dispatcher"; and
// under the A2A/1F1B overlap, "disable moe_shared_expert_overlap when enabling
// overlap_moe_expert_parallel_comm". Without shared experts the flag does nothing and is allowed.
template <class Report>
bool shared_expert_overlap_rule(const ModelShape& m, const PlanWorkload& w, const Layout& l,
                                Report& report) {
  if (!w.shared_expert_overlap || !m.is_moe()) return true;
  if (w.ep_a2a_overlap) {
    return report(LayoutRule::kSharedExpertOverlap, [&] {
      return Details{"run",
                     "the shared-expert overlap (--moe-shared-expert-overlap) and the EP "
                     "all-to-all overlap (--overlap-moe-expert-parallel-comm) exclude each other",
                     "one of them", "both"};
    });
  }
  if (m.shared_expert_ffn_hidden_size <= 0 || l.dispatcher.empty() || l.dispatcher == "alltoall")
    return true;
  return report(LayoutRule::kSharedExpertOverlap, [&] {
    return Details{"layout.dispatcher",
                   "the shared-expert overlap (--moe-shared-expert-overlap) of a model with shared "
                   "experts needs the alltoall dispatcher",
                   "alltoall, or the run without --moe-shared-expert-overlap", l.dispatcher};
  });
}

// Checks that a row split over CP fits in max_tokens_per_gpu, then that the micro-batch's rows
// do: a micro-batch of rows_per_microbatch rows spread over CP holds rows x row_tokens / CP tokens
// per GPU, which max_tokens_per_gpu bounds (slime packs up to max_tokens_per_gpu x CP tokens per
// micro-batch: slime/backends/megatron_utils/data.py, get_data_iterator).
template <class Report>
void row_fits_rule(const PlanWorkload& w, const Layout& l, Report& report) {
  const long long budget = static_cast<long long>(l.max_tokens_per_gpu) * l.cp;
  const long long rows_tokens = static_cast<long long>(l.rows_per_microbatch) * w.row_tokens;
  if (budget >= w.row_tokens && rows_tokens > budget) {
    report(LayoutRule::kMicrobatchFits, [&] {
      return Details{
          "layout.rows_per_microbatch",
          "the micro-batch's rows must fit max_tokens_per_gpu x cp tokens",
          fmt::format("at most {} row(s) (max_tokens_per_gpu {} x cp {} / row_tokens {})",
                      budget / w.row_tokens, l.max_tokens_per_gpu, l.cp, w.row_tokens),
          fmt::format("{} ({} tokens)", l.rows_per_microbatch, rows_tokens)};
    });
  }
  if (budget < w.row_tokens) {
    report(LayoutRule::kRowFits, [&] {
      return Details{"layout.max_tokens_per_gpu",
                     "a row split over CP must fit in max_tokens_per_gpu",
                     fmt::format("at least {} (row_tokens {} / cp {})",
                                 (w.row_tokens + l.cp - 1) / l.cp, w.row_tokens, l.cp),
                     fmt::format("{}", l.max_tokens_per_gpu)};
    });
  }
}

// The rules, written once, in the order of all_layout_rules. Returns early when `report` returns
// false.
template <class Report>
void apply_rules(const ModelShape& m, const ClusterShape& c, const PlanWorkload& w, const Layout& l,
                 Report&& report) {
  if (!sizes_rule(c, l, report)) return;
  const int dp = implied_data_parallel(c, l);
  if (!dense_mesh_rules(m, c, l, dp, report)) return;
  if (!expert_rules(m, c, l, report)) return;
  if (!placement_rules(m, l, report)) return;
  if (!batch_rules(m, w, l, dp, report)) return;
  if (!ep_a2a_overlap_rule(w, l, report)) return;
  if (!flex_dispatcher_rule(m, l, report)) return;
  if (!tp_comm_overlap_rule(w, l, report)) return;
  if (!shared_expert_overlap_rule(m, w, l, report)) return;
  row_fits_rule(w, l, report);
}

}  // namespace

const std::vector<LayoutRule>& all_layout_rules() {
  static const std::vector<LayoutRule> kRules = {
      LayoutRule::kSizes,
      LayoutRule::kDenseMesh,
      LayoutRule::kTpHeads,
      LayoutRule::kTpNode,
      LayoutRule::kSequenceParallel,
      LayoutRule::kExperts,
      LayoutRule::kExpertMesh,
      LayoutRule::kPlacementExclusive,
      LayoutRule::kPipelineLayout,
      LayoutRule::kPipelineLayers,
      LayoutRule::kVirtualPipeline,
      LayoutRule::kContextParallel,
      LayoutRule::kCpLayers,
      LayoutRule::kGlobalBatch,
      LayoutRule::kRecompute,
      LayoutRule::kEpA2aOverlap,
      LayoutRule::kFlexDispatcher,
      LayoutRule::kTpCommOverlap,
      LayoutRule::kSharedExpertOverlap,
      LayoutRule::kRowFits,
      LayoutRule::kMicrobatchFits,
  };
  return kRules;
}

std::string layout_rule_id(LayoutRule rule) {
  switch (rule) {
    case LayoutRule::kSizes:
      return "layout.sizes";
    case LayoutRule::kDenseMesh:
      return "mesh.world";
    case LayoutRule::kTpHeads:
      return "mesh.tp_heads";
    case LayoutRule::kTpNode:
      return "mesh.tp_node";
    case LayoutRule::kSequenceParallel:
      return "mesh.sp";
    case LayoutRule::kExperts:
      return "mesh.ep";
    case LayoutRule::kExpertMesh:
      return "mesh.expert_dp";
    case LayoutRule::kPlacementExclusive:
      return "mesh.placement_exclusive";
    case LayoutRule::kPipelineLayout:
      return "mesh.pipeline_layout";
    case LayoutRule::kPipelineLayers:
      return "mesh.pp";
    case LayoutRule::kVirtualPipeline:
      return "mesh.vpp";
    case LayoutRule::kContextParallel:
      return "mesh.cp";
    case LayoutRule::kCpLayers:
      return "mesh.cp_layers";
    case LayoutRule::kGlobalBatch:
      return "mesh.batch";
    case LayoutRule::kRowFits:
      return "mesh.max_tokens";
    case LayoutRule::kMicrobatchFits:
      return "mesh.microbatch";
    case LayoutRule::kRecompute:
      return "mesh.recompute";
    case LayoutRule::kEpA2aOverlap:
      return "mesh.ep_a2a_overlap";
    case LayoutRule::kFlexDispatcher:
      return "mesh.flex_dispatcher";
    case LayoutRule::kTpCommOverlap:
      return "mesh.tp_comm_overlap";
    case LayoutRule::kSharedExpertOverlap:
      return "mesh.shared_expert_overlap";
  }
  return "layout";
}

std::string layout_rule_text(LayoutRule rule) {
  switch (rule) {
    case LayoutRule::kSizes:
      return "every size is at least 1";
    case LayoutRule::kDenseMesh:
      return "TP x PP x CP divides the GPU count";
    case LayoutRule::kTpHeads:
      return "TP divides the KV heads (and linear-attention heads, Mamba-2 heads and groups)";
    case LayoutRule::kTpNode:
      return "TP and ETP stay within one node";
    case LayoutRule::kSequenceParallel:
      return "sequence parallelism is on when TP > 1";
    case LayoutRule::kExperts:
      return "EP divides the experts and ETP their FFN width (EP = ETP = 1 when dense)";
    case LayoutRule::kExpertMesh:
      return "PP x EP x ETP divides the GPU count";
    case LayoutRule::kPlacementExclusive:
      return "a pipeline_layout stands alone; layer_split excludes the account-for flags";
    case LayoutRule::kPipelineLayout:
      return "the pipeline_layout places every layer once on PP x VPP chunks, E first, L last";
    case LayoutRule::kPipelineLayers:
      return "the PP stages cover every layer";
    case LayoutRule::kVirtualPipeline:
      return "VPP needs PP > 1 and divides every stage's layers";
    case LayoutRule::kContextParallel:
      return "the row splits into 2 x CP equal chunks";
    case LayoutRule::kCpLayers:
      return "CP divides each TP rank's Gated DeltaNet and Mamba-2 heads (Mamba-2 groups too)";
    case LayoutRule::kGlobalBatch:
      return "DP x rows per micro-batch divides the global batch";
    case LayoutRule::kRowFits:
      return "a row fits a micro-batch (max_tokens_per_gpu x CP >= row tokens)";
    case LayoutRule::kMicrobatchFits:
      return "the micro-batch's rows fit (rows x row tokens <= max_tokens_per_gpu x CP)";
    case LayoutRule::kRecompute:
      return "full recompute's num_layers fits in a stage's virtual chunk";
    case LayoutRule::kEpA2aOverlap:
      return "the EP all-to-all overlap needs EP > 1, alltoall or flex, no full recompute, VPP "
             "when "
             "pipelined";
    case LayoutRule::kFlexDispatcher:
      return "the flex dispatcher needs TP x EP > 1";
    case LayoutRule::kTpCommOverlap:
      return "TP communication overlap needs TP > 1";
    case LayoutRule::kSharedExpertOverlap:
      return "the shared-expert overlap needs alltoall (with shared experts) and excludes the EP "
             "all-to-all overlap";
  }
  return "";
}

int implied_data_parallel(const ClusterShape& cluster, const Layout& layout) {
  return data_parallel_size(cluster.gpus, layout.tp, layout.pp, layout.cp).value_or(0);
}

int implied_expert_data_parallel(const ClusterShape& cluster, const Layout& layout) {
  return data_parallel_size(cluster.gpus, layout.pp, layout.ep, layout.etp).value_or(0);
}

std::vector<LayoutViolation> check_layout(const ModelShape& model, const ClusterShape& cluster,
                                          const PlanWorkload& workload, const Layout& layout) {
  std::vector<LayoutViolation> violations;
  apply_rules(model, cluster, workload, layout, [&](LayoutRule rule, auto&& details) {
    Details d = details();
    violations.push_back({rule, std::move(d.field), std::move(d.message), std::move(d.expected),
                          std::move(d.found)});
    return true;
  });
  return violations;
}

std::optional<LayoutRule> first_broken_rule(const ModelShape& model, const ClusterShape& cluster,
                                            const PlanWorkload& workload, const Layout& layout) {
  std::optional<LayoutRule> broken;
  apply_rules(model, cluster, workload, layout, [&](LayoutRule rule, auto&&) {
    broken = rule;
    return false;
  });
  return broken;
}

}  // namespace openrecipes
