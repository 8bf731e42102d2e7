#include "plan/layout_search.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "layout/pipeline_layout.h"
#include "layout/pipeline_stages.h"

namespace openrecipes {
namespace {

std::vector<int> divisors_up_to(int n, int limit) {
  std::vector<int> out;
  for (int d = 1; d <= std::min(n, limit); ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

// Layer splits worth trying when PP does not divide the layers: first and last stages within a
// few layers of the average, the middle stages even (the rules reject the rest).
std::vector<std::optional<LayerSplit>> layer_splits(int layers, int pp) {
  if (pp < 2 || layers % pp == 0) return {std::nullopt};
  std::vector<std::optional<LayerSplit>> splits;
  int average = (layers + pp - 1) / pp;
  for (int first = std::max(1, average - 3); first <= average + 1; ++first) {
    for (int last = std::max(1, average - 3); last <= average + 1; ++last) {
      int middle = layers - first - last;
      bool even = pp == 2 ? middle == 0 : middle >= pp - 2 && middle % (pp - 2) == 0;
      if (even) splits.push_back(LayerSplit{first, last});
    }
  }
  if (splits.empty()) splits.push_back(std::nullopt);  // nothing works: let mesh.pp say so
  return splits;
}

// The best `size` layouts offered, by predicted tokens/s per GPU; among equals the earlier offered
// ranks first. A heap whose top is the worst kept, so that an offer costs O(log size) moves of a
// (large) LayoutPrediction instead of O(size): `plan --top 10000` spent 4 of its 4.5 s shifting a
// sorted vector.
class TopLayouts {
 public:
  explicit TopLayouts(int size) : size_(std::max(size, 0)) {}
  // Keeps `p` if it is among the best `size_` so far (strictly better than the worst kept).
  void offer(LayoutPrediction p) {
    if (size_ == 0) return;
    if (static_cast<int>(kept_.size()) == size_ &&
        p.speed.tokens_per_s_per_gpu <= kept_.front().prediction.speed.tokens_per_s_per_gpu) {
      return;
    }
    kept_.push_back({std::move(p), offered_++});
    std::push_heap(kept_.begin(), kept_.end(), better);
    if (static_cast<int>(kept_.size()) > size_) {
      std::pop_heap(kept_.begin(), kept_.end(), better);
      kept_.pop_back();
    }
  }
  double worst() const {
    return static_cast<int>(kept_.size()) < size_
               ? -1
               : kept_.front().prediction.speed.tokens_per_s_per_gpu;
  }
  // The kept layouts, best first.
  std::vector<LayoutPrediction> take() {
    std::sort_heap(kept_.begin(), kept_.end(), better);
    std::vector<LayoutPrediction> out;
    out.reserve(kept_.size());
    for (Entry& e : kept_) out.push_back(std::move(e.prediction));
    kept_.clear();
    return out;
  }

 private:
  struct Entry {
    LayoutPrediction prediction;
    std::size_t offered;  // order of the offer: the tie-break
  };
  // "Ranks before": faster, or as fast and offered earlier. As a heap's order it puts the worst
  // kept entry on top; sort_heap then leaves the best first.
  static bool better(const Entry& a, const Entry& b) {
    if (a.prediction.speed.tokens_per_s_per_gpu != b.prediction.speed.tokens_per_s_per_gpu) {
      return a.prediction.speed.tokens_per_s_per_gpu > b.prediction.speed.tokens_per_s_per_gpu;
    }
    return a.offered < b.offered;
  }
  int size_;
  std::size_t offered_ = 0;
  std::vector<Entry> kept_;
};

// The sizes the search tries on each axis.
struct SearchAxes {
  std::vector<int> tps, pps, cps, eps, etps;
  std::vector<int> rows_per_microbatch;  // 1, 2, 4, ... up to options.max_rows_per_microbatch
};

// Lists each axis's sizes for `model` on `cluster`: divisors of the GPU count within each axis's
// bound.
SearchAxes search_axes(const ModelShape& model, const ClusterShape& cluster,
                       const SearchOptions& options) {
  SearchAxes axes;
  const int w = cluster.gpus;
  axes.tps = divisors_up_to(w, 2 * std::max(cluster.per_node, 1));
  axes.pps = divisors_up_to(w, model.layers);
  axes.cps = divisors_up_to(w, 32);
  axes.eps = model.is_moe() ? divisors_up_to(w, model.experts) : std::vector<int>{1};
  axes.etps =
      model.is_moe() ? divisors_up_to(w, std::max(cluster.per_node, 1)) : std::vector<int>{1};
  for (int m = 1; m <= options.max_rows_per_microbatch; m *= 2)
    axes.rows_per_microbatch.push_back(m);
  return axes;
}

// The decoder layers of each chunk of `layout`'s placement; empty when Megatron-LM would refuse
// it.
std::vector<int> chunk_decoder_layers(const ModelShape& model, const Layout& layout) {
  std::vector<int> layers;
  if (std::optional<PipelinePlacement> p = place_layers(model, layout)) {
    for (const PipelineChunk& chunk : p->chunks) layers.push_back(chunk.decoder_layers);
  }
  return layers;
}

// The balanced placement (balanced_placement) of every PP x VPP the search tries whose layers do
// not divide evenly, keyed by (PP, VPP); none where the even split is legal, where a chunk would
// average under one layer, or where a split layer_splits already tries places the same layers.
std::map<std::pair<int, int>, PlacementChoice> balanced_placements(const SearchAxes& axes,
                                                                   const ModelShape& model,
                                                                   const SearchOptions& options) {
  std::map<std::pair<int, int>, PlacementChoice> out;
  for (int pp : axes.pps) {
    const std::vector<std::optional<LayerSplit>> splits = layer_splits(model.layers, pp);
    for (int vpp = 1; vpp <= (pp > 1 ? options.max_virtual_stages : 1); ++vpp) {
      const bool even = model.layers % pp == 0 && (model.layers / pp) % vpp == 0;
      if (even || pp * vpp > model.layers) continue;
      std::optional<PlacementChoice> choice = balanced_placement(model, pp, vpp);
      if (!choice) continue;
      // A split layer_splits already tries that puts the same decoder layers on every chunk (the
      // account-for flags often equal one) would only repeat its meshes.
      Layout balanced;
      balanced.pp = pp;
      balanced.vpp = vpp;
      choice->apply_to(balanced);
      const std::vector<int> layers = chunk_decoder_layers(model, balanced);
      const bool tried = std::any_of(splits.begin(), splits.end(), [&](const auto& split) {
        Layout tried_layout = balanced;
        PlacementChoice{split, false, false, "", 0}.apply_to(tried_layout);
        return split && chunk_decoder_layers(model, tried_layout) == layers;
      });
      if (!tried) out.emplace(std::pair{pp, vpp}, *choice);
    }
  }
  return out;
}

// Whether every mesh that shares TP, PP, VPP, placement and CP with one that breaks `rule` first
// breaks it first too, whatever its EP, ETP and rows per micro-batch: mesh.world and
// mesh.tp_heads read TP, PP and CP alone, and only layout.sizes, which every searched mesh passes,
// comes before them (layout_rules.h, all_layout_rules).
bool decided_without_expert_sizes(LayoutRule rule) {
  return rule == LayoutRule::kDenseMesh || rule == LayoutRule::kTpHeads;
}

// Whether every mesh that differs from one that breaks `rule` first only in rows per micro-batch
// breaks it first too: the rules before mesh.batch do not read the micro-batch (nor
// max_tokens_per_gpu, which follows from it).
bool decided_without_microbatch(LayoutRule rule) {
  const std::vector<LayoutRule>& order = all_layout_rules();
  return std::find(order.begin(), order.end(), rule) <
         std::find(order.begin(), order.end(), LayoutRule::kGlobalBatch);
}

// Calls `visit` with `base` (TP, PP, VPP and placement set) at every CP, EP, ETP and rows per
// micro-batch of `axes`, no recompute, in that order (the first outermost). A block of meshes
// that all break the same rule first is handed to `reject_block(rule, first mesh, count)` instead:
// the same counts and examples as visiting each, without checking each. At thousands of GPUs with
// many divisors (2,520: 285 million meshes, two thirds breaking mesh.world) checking each took
// seconds.
template <class Visit, class RejectBlock>
void for_each_size(const SearchAxes& axes, const ModelShape& model, const ClusterShape& cluster,
                   const PlanWorkload& workload, const SearchOptions& options, const Layout& base,
                   Visit&& visit, RejectBlock&& reject_block) {
  if (axes.cps.empty() || axes.eps.empty() || axes.etps.empty() ||
      axes.rows_per_microbatch.empty()) {
    return;  // no mesh (a SearchOptions without micro-batch sizes)
  }
  Layout l = base;
  l.sequence_parallel = l.tp > 1;
  l.dispatcher = model.is_moe() && !options.dispatchers.empty() ? options.dispatchers.front() : "";
  auto set_sizes = [&](int cp, int ep, int etp, int mbs) {
    l.cp = cp;
    l.ep = ep;
    l.etp = etp;
    l.rows_per_microbatch = mbs;
    l.max_tokens_per_gpu = (static_cast<std::int64_t>(mbs) * workload.row_tokens + cp - 1) / cp;
  };
  const auto microbatches = static_cast<std::int64_t>(axes.rows_per_microbatch.size());
  const std::int64_t per_cp =
      static_cast<std::int64_t>(axes.eps.size() * axes.etps.size()) * microbatches;
  for (int cp : axes.cps) {
    set_sizes(cp, axes.eps.front(), axes.etps.front(), axes.rows_per_microbatch.front());
    std::optional<LayoutRule> rule;
    if (!options.check_every_mesh) rule = first_broken_rule(model, cluster, workload, l);
    if (rule && decided_without_expert_sizes(*rule)) {
      reject_block(*rule, l, per_cp);
      continue;
    }
    for (int ep : axes.eps) {
      for (int etp : axes.etps) {
        set_sizes(cp, ep, etp, axes.rows_per_microbatch.front());
        if (!options.check_every_mesh) rule = first_broken_rule(model, cluster, workload, l);
        if (rule && decided_without_microbatch(*rule)) {
          reject_block(*rule, l, microbatches);
          continue;
        }
        for (int mbs : axes.rows_per_microbatch) {
          set_sizes(cp, ep, etp, mbs);
          visit(l);
        }
      }
    }
  }
}

// Calls `visit` with every mesh of `axes`, no recompute, in generation order (TP, PP, then the
// layer splits with VPP inside, then each VPP's balanced placement, then CP, EP, ETP, rows per
// micro-batch; the first outermost).
template <class Visit, class RejectBlock>
void for_each_mesh(const SearchAxes& axes, const ModelShape& model, const ClusterShape& cluster,
                   const PlanWorkload& workload, const SearchOptions& options, Visit&& visit,
                   RejectBlock&& reject_block) {
  const std::map<std::pair<int, int>, PlacementChoice> balanced =
      balanced_placements(axes, model, options);
  for (int tp : axes.tps) {
    for (int pp : axes.pps) {
      Layout base;
      base.tp = tp;
      base.pp = pp;
      for (const std::optional<LayerSplit>& split : layer_splits(model.layers, pp)) {
        for (int vpp = 1; vpp <= (pp > 1 ? options.max_virtual_stages : 1); ++vpp) {
          base.vpp = vpp;
          base.layer_split = split;
          for_each_size(axes, model, cluster, workload, options, base, visit, reject_block);
        }
      }
      for (int vpp = 1; vpp <= (pp > 1 ? options.max_virtual_stages : 1); ++vpp) {
        auto it = balanced.find({pp, vpp});
        if (it == balanced.end()) continue;
        base.vpp = vpp;
        it->second.apply_to(base);
        for_each_size(axes, model, cluster, workload, options, base, visit, reject_block);
      }
    }
  }
}

// One search's state: the best layouts so far, the counts, and the rejections per rule.
class Search {
 public:
  Search(const ModelShape& model, const ClusterShape& cluster, const PlanWorkload& workload,
         const SearchOptions& options)
      : model_(model),
        cluster_(cluster),
        workload_(workload),
        options_(options),
        top_(options.top) {}

  // Checks `mesh` against the layout rules and, when legal, evaluates its recompute settings,
  // cheapest first. Full block: the fewest recomputed layers that fit (more only costs time), and
  // only when nothing fits without recompute.
  void visit(const Layout& mesh) {
    if (std::optional<LayoutRule> rule = first_broken_rule(model_, cluster_, workload_, mesh)) {
      ++result_.candidates;
      reject(*rule, mesh);
      return;
    }
    mesh_ = &mesh;
    ceiling_.reset();
    const bool fits_without_recompute = evaluate(mesh);
    Layout selective = mesh;
    selective.recompute = Recompute{"selective", "", {}};
    evaluate_if_legal(selective);
    const int chunk = smallest_chunk_layers(model_, mesh);
    for (int unit : {1, 2, 4}) {
      if (unit > chunk) break;
      Layout uniform = mesh;
      uniform.recompute = Recompute{"full", "uniform", unit};
      evaluate_if_legal(uniform);
    }
    if (!fits_without_recompute && chunk > 1 && block_fits(mesh, chunk - 1)) {
      Layout block = mesh;
      block.recompute = Recompute{"full", "block", fewest_block_layers(mesh, chunk - 1)};
      evaluate_if_legal(block);
    }
  }

  // The result: the kept layouts, and per rule in rule order one rejected example with its
  // violation.
  LayoutSearchResult finish() {
    result_.ranked = top_.take();
    for (LayoutRule rule : all_layout_rules()) {
      auto it = rejected_.find(rule);
      if (it == rejected_.end()) continue;
      RuleRejections r = it->second;
      std::vector<LayoutViolation> v = check_layout(model_, cluster_, workload_, r.example);
      for (const LayoutViolation& violation : v) {
        if (violation.rule == rule) {
          r.example_violation = violation;
          break;
        }
      }
      result_.rejected.push_back(std::move(r));
    }
    return std::move(result_);
  }

  // Counts `count` meshes that all break `rule` first, `first` the earliest of them in the
  // search's order (for_each_size).
  void reject_block(LayoutRule rule, const Layout& first, std::int64_t count) {
    result_.candidates += count;
    reject(rule, first, count);
  }

 private:
  // Counts `count` meshes `rule` rejects, keeping the first as the rule's example.
  void reject(LayoutRule rule, const Layout& l, std::int64_t count = 1) {
    RuleRejections& r = rejected_.try_emplace(rule, RuleRejections{rule, 0, l, {}}).first->second;
    r.count += count;
  }

  // Evaluates a recompute setting of a legal mesh when the rules allow it (full recompute breaks
  // mesh.ep_a2a_overlap under --overlap-moe-expert-parallel-comm); else counts the rejection.
  void evaluate_if_legal(const Layout& l) {
    if (std::optional<LayoutRule> rule = first_broken_rule(model_, cluster_, workload_, l)) {
      ++result_.candidates;
      reject(*rule, l);
      return;
    }
    evaluate(l);
  }

  // The dispatchers `l` (legal) is tried with: its own and, with EP > 1, each further one of the
  // options that the rules allow; a dispatcher a rule refuses is counted as that rule's rejection.
  std::vector<std::string> dispatchers_of(const Layout& l) {
    std::vector<std::string> out{l.dispatcher};
    if (l.ep <= 1 || !model_.is_moe()) return out;
    Layout variant = l;
    for (std::size_t i = 1; i < options_.dispatchers.size(); ++i) {
      variant.dispatcher = options_.dispatchers[i];
      if (std::optional<LayoutRule> rule =
              first_broken_rule(model_, cluster_, workload_, variant)) {
        ++result_.candidates;
        reject(*rule, variant);
        continue;
      }
      out.push_back(variant.dispatcher);
    }
    return out;
  }

  // Predicts a legal layout with each of its dispatchers and offers the fastest (the first on a
  // tie) to the top list; returns whether it fits in memory (no memory term reads the
  // dispatcher: memory_model.h).
  bool evaluate(Layout l) {
    l.dp = implied_data_parallel(cluster_, l);
    const std::vector<std::string> dispatchers = dispatchers_of(l);
    const auto count = static_cast<std::int64_t>(dispatchers.size());
    result_.candidates += count;
    result_.legal += count;
    // Memory first: it decides whether the (costlier) speed model runs at all.
    MemoryEstimate memory = estimate_memory(model_, cluster_, workload_, l, options_.memory);
    if (!memory.fits) {
      result_.rejected_by_memory += count;
      if (!result_.memory_example ||
          memory.memory_bytes < result_.memory_example->memory.memory_bytes) {
        result_.memory_example =
            predict_layout(model_, cluster_, workload_, l, options_.speed, options_.memory);
      }
      return false;
    }
    result_.fitting += count;
    if (l.recompute && !options_.predict_every_layout && speed_ceiling() <= top_.worst()) {
      return true;  // no faster than its mesh without recompute, which the top list beats
    }
    result_.predicted += count;
    const std::vector<double> speeds =
        predict_per_dispatcher(model_, cluster_, workload_, l, dispatchers, options_.speed);
    const auto fastest = static_cast<std::size_t>(
        std::distance(speeds.begin(), std::max_element(speeds.begin(), speeds.end())));
    if (!l.recompute && dispatchers.size() == all_dispatchers(l).size()) {
      ceiling_ = speeds[fastest];
    }
    if (speeds[fastest] > top_.worst()) {
      l.dispatcher = dispatchers[fastest];
      top_.offer(predict_layout(model_, cluster_, workload_, l, options_.speed, options_.memory));
    }
    return true;
  }

  // The dispatchers a speed ceiling of `l` covers: all of the options' with EP > 1 (the rules may
  // refuse some, which only lowers what a layout can reach), else its own.
  std::vector<std::string> all_dispatchers(const Layout& l) const {
    if (l.ep > 1 && model_.is_moe() && !options_.dispatchers.empty()) return options_.dispatchers;
    return {l.dispatcher};
  }

  // The fastest any recompute setting of the mesh being visited can run, tokens/s per GPU: the
  // mesh without recompute under each dispatcher it may use. Recompute only adds time in the
  // speed model (the recomputed forward, TP collectives again, fixed costs per unit; nothing it
  // overlaps grows), so this bounds every setting. Computed once per mesh, when first needed.
  double speed_ceiling() {
    if (!ceiling_) {
      Layout l = *mesh_;
      l.dp = implied_data_parallel(cluster_, l);
      const std::vector<double> speeds = predict_per_dispatcher(model_, cluster_, workload_, l,
                                                                all_dispatchers(l), options_.speed);
      ceiling_ = speeds.empty() ? 0 : *std::max_element(speeds.begin(), speeds.end());
    }
    return *ceiling_;
  }

  // Whether `mesh` with full block recompute of `n` layers per chunk fits in memory.
  bool block_fits(const Layout& mesh, int n) const {
    Layout block = mesh;
    block.recompute = Recompute{"full", "block", n};
    block.dp = implied_data_parallel(cluster_, block);
    return estimate_memory(model_, cluster_, workload_, block, options_.memory).fits;
  }

  // The smallest n in 1..`high` for which block_fits holds, given that it holds at `high`. Memory
  // falls as n rises: binary search.
  int fewest_block_layers(const Layout& mesh, int high) const {
    int low = 1;
    while (low < high) {
      int mid = low + (high - low) / 2;
      if (block_fits(mesh, mid)) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return high;
  }

  const ModelShape& model_;
  const ClusterShape& cluster_;
  const PlanWorkload& workload_;
  const SearchOptions& options_;
  LayoutSearchResult result_;
  TopLayouts top_;
  std::map<LayoutRule, RuleRejections> rejected_;
  const Layout* mesh_ = nullptr;   // the mesh visit() is at (no recompute)
  std::optional<double> ceiling_;  // speed_ceiling() of mesh_, once known
};

}  // namespace

bool same_layout(const Layout& a, const Layout& b) {
  auto split = [](const Layout& l) {
    return l.layer_split ? std::pair{l.layer_split->first, l.layer_split->last} : std::pair{0, 0};
  };
  auto recompute = [](const Layout& l) {
    return l.recompute ? std::tuple{l.recompute->granularity, l.recompute->method,
                                    l.recompute->num_layers.value_or(0)}
                       : std::tuple{std::string(), std::string(), 0};
  };
  auto dispatcher = [](const Layout& l) {
    return l.ep > 1 ? (l.dispatcher.empty() ? "alltoall" : l.dispatcher) : "";
  };
  return a.tp == b.tp && a.pp == b.pp && a.vpp == b.vpp && a.cp == b.cp && a.ep == b.ep &&
         a.etp == b.etp && a.rows_per_microbatch == b.rows_per_microbatch && split(a) == split(b) &&
         a.pipeline_layout == b.pipeline_layout &&
         a.account_for_embedding_in_pipeline_split == b.account_for_embedding_in_pipeline_split &&
         a.account_for_loss_in_pipeline_split == b.account_for_loss_in_pipeline_split &&
         recompute(a) == recompute(b) && std::string(dispatcher(a)) == dispatcher(b);
}

LayoutSearchResult search_layouts(const ModelShape& model, const ClusterShape& cluster,
                                  const PlanWorkload& workload, const SearchOptions& options) {
  Search search(model, cluster, workload, options);
  for_each_mesh(
      search_axes(model, cluster, options), model, cluster, workload, options,
      [&](const Layout& mesh) { search.visit(mesh); },
      [&](LayoutRule rule, const Layout& first, std::int64_t count) {
        search.reject_block(rule, first, count);
      });
  return search.finish();
}

}  // namespace openrecipes
