#include "plan/layout_search.h"

#include <algorithm>
#include <map>

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

class TopLayouts {
 public:
  explicit TopLayouts(int size) : size_(std::max(size, 0)) {}
  // Keeps `p` if it is among the best `size_` so far (strictly better than the worst kept).
  void offer(LayoutPrediction p) {
    if (size_ == 0) return;
    if (static_cast<int>(kept_.size()) == size_ &&
        p.speed.tokens_per_s_per_gpu <= kept_.back().speed.tokens_per_s_per_gpu) {
      return;
    }
    auto at = std::upper_bound(kept_.begin(), kept_.end(), p, [](const LayoutPrediction& a, const LayoutPrediction& b) {
      return a.speed.tokens_per_s_per_gpu > b.speed.tokens_per_s_per_gpu;
    });
    kept_.insert(at, std::move(p));
    if (static_cast<int>(kept_.size()) > size_) kept_.pop_back();
  }
  double worst() const { return static_cast<int>(kept_.size()) < size_ ? -1 : kept_.back().speed.tokens_per_s_per_gpu; }
  std::vector<LayoutPrediction> take() { return std::move(kept_); }

 private:
  int size_;
  std::vector<LayoutPrediction> kept_;
};

}  // namespace

bool same_layout(const Layout& a, const Layout& b) {
  auto split = [](const Layout& l) {
    return l.layer_split ? std::pair{l.layer_split->first, l.layer_split->last} : std::pair{0, 0};
  };
  auto recompute = [](const Layout& l) {
    return l.recompute ? std::tuple{l.recompute->granularity, l.recompute->method, l.recompute->num_layers.value_or(0)}
                       : std::tuple{std::string(), std::string(), 0};
  };
  auto dispatcher = [](const Layout& l) { return l.ep > 1 ? (l.dispatcher.empty() ? "alltoall" : l.dispatcher) : ""; };
  return a.tp == b.tp && a.pp == b.pp && a.vpp == b.vpp && a.cp == b.cp && a.ep == b.ep && a.etp == b.etp &&
         a.rows_per_microbatch == b.rows_per_microbatch && split(a) == split(b) && recompute(a) == recompute(b) &&
         std::string(dispatcher(a)) == dispatcher(b);
}

LayoutSearchResult search_layouts(const ModelShape& model, const ClusterShape& cluster, const PlanWorkload& workload,
                                  const SearchOptions& options) {
  LayoutSearchResult result;
  TopLayouts top(options.top);
  std::map<LayoutRule, RuleRejections> rejected;
  const int w = cluster.gpus;
  const std::vector<int> tps = divisors_up_to(w, 2 * std::max(cluster.per_node, 1));
  const std::vector<int> pps = divisors_up_to(w, model.layers);
  const std::vector<int> cps = divisors_up_to(w, 32);
  const std::vector<int> eps = model.is_moe() ? divisors_up_to(w, model.experts) : std::vector<int>{1};
  const std::vector<int> etps = model.is_moe() ? divisors_up_to(w, std::max(cluster.per_node, 1)) : std::vector<int>{1};
  std::vector<int> mbss;
  for (int m = 1; m <= options.max_rows_per_microbatch; m *= 2) mbss.push_back(m);

  auto reject = [&](LayoutRule rule, const Layout& l) {
    RuleRejections& r = rejected.try_emplace(rule, RuleRejections{rule, 0, l, {}}).first->second;
    ++r.count;
  };
  auto evaluate = [&](Layout l) {
    ++result.candidates;
    ++result.legal;
    l.dp = implied_data_parallel(cluster, l);
    // Memory first: it decides whether the (costlier) speed model runs at all.
    MemoryEstimate memory = estimate_memory(model, cluster, workload, l, options.memory);
    if (!memory.fits) {
      ++result.rejected_by_memory;
      if (!result.memory_example || memory.memory_bytes < result.memory_example->memory.memory_bytes) {
        result.memory_example = predict_layout(model, cluster, workload, l, options.speed, options.memory);
      }
      return false;
    }
    ++result.fitting;
    LayoutPrediction p{l, std::move(memory), estimate_speed(model, cluster, workload, l, options.speed)};
    if (p.speed.tokens_per_s_per_gpu > top.worst()) {
      top.offer(predict_layout(model, cluster, workload, l, options.speed, options.memory));
    }
    return true;
  };

  for (int tp : tps) {
    for (int pp : pps) {
      for (const std::optional<LayerSplit>& split : layer_splits(model.layers, pp)) {
        for (int vpp = 1; vpp <= (pp > 1 ? options.max_virtual_stages : 1); ++vpp) {
          for (int cp : cps) {
            for (int ep : eps) {
              for (int etp : etps) {
                for (int mbs : mbss) {
                  Layout l;
                  l.tp = tp;
                  l.pp = pp;
                  l.vpp = vpp;
                  l.cp = cp;
                  l.ep = ep;
                  l.etp = etp;
                  l.layer_split = split;
                  l.sequence_parallel = tp > 1;
                  l.rows_per_microbatch = mbs;
                  l.max_tokens_per_gpu = (static_cast<std::int64_t>(mbs) * workload.row_tokens + cp - 1) / cp;
                  l.dispatcher = model.is_moe() ? "alltoall" : "";
                  if (std::optional<LayoutRule> rule = first_broken_rule(model, cluster, workload, l)) {
                    ++result.candidates;
                    reject(*rule, l);
                    continue;
                  }
                  // Recompute settings, cheapest first. Full block: the fewest recomputed layers
                  // that fit (more only costs time), and only when nothing fits without recompute.
                  const bool fits_without_recompute = evaluate(l);
                  Layout selective = l;
                  selective.recompute = Recompute{"selective", "", {}};
                  evaluate(selective);
                  const int chunk = smallest_chunk_layers(model, l);
                  for (int unit : {1, 2, 4}) {
                    if (unit > chunk) break;
                    Layout uniform = l;
                    uniform.recompute = Recompute{"full", "uniform", unit};
                    evaluate(uniform);
                  }
                  // Memory falls as n rises: binary search for the smallest n that fits.
                  auto block_fits = [&](int n) {
                    Layout block = l;
                    block.recompute = Recompute{"full", "block", n};
                    block.dp = implied_data_parallel(cluster, block);
                    return estimate_memory(model, cluster, workload, block, options.memory).fits;
                  };
                  if (!fits_without_recompute && chunk > 1 && block_fits(chunk - 1)) {
                    int low = 1, high = chunk - 1;  // block_fits(high) holds
                    while (low < high) {
                      int mid = low + (high - low) / 2;
                      if (block_fits(mid)) {
                        high = mid;
                      } else {
                        low = mid + 1;
                      }
                    }
                    Layout block = l;
                    block.recompute = Recompute{"full", "block", high};
                    evaluate(block);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  result.ranked = top.take();
  for (LayoutRule rule : all_layout_rules()) {
    auto it = rejected.find(rule);
    if (it == rejected.end()) continue;
    RuleRejections r = it->second;
    std::vector<LayoutViolation> v = check_layout(model, cluster, workload, r.example);
    for (const LayoutViolation& violation : v) {
      if (violation.rule == rule) {
        r.example_violation = violation;
        break;
      }
    }
    result.rejected.push_back(std::move(r));
  }
  return result;
}

}  // namespace openrecipes
