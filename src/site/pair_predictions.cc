#include "site/pair_predictions.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "base/parallel_for.h"
#include "catalog/ranking.h"
#include "layout/layout_text.h"
#include "plan/catalog_measurements.h"
#include "plan/layout_plan.h"
#include "plan/layout_request.h"
#include "plan/memory_model.h"
#include "plan/plan_report.h"
#include "plan/published_measurements.h"
#include "plan/speed_calibration.h"
#include "plan/speed_model.h"

namespace openrecipes {
namespace {

// One search's result, with what the export flags are written from, so that every model sharing
// the search gets flags naming itself.
struct PairSearch {
  PairPrediction prediction;  ///< export_arguments still empty
  ClusterShape cluster;
  PlanWorkload workload;
  std::vector<Layout> layouts;  ///< per suggestion
};

// Whether two layouts are the same parallel layout (sizes, placement, micro-batch, dispatcher),
// whatever their recompute and offloading: the search ranks each such setting separately.
bool same_parallel_layout(Layout a, Layout b) {
  for (Layout* l : {&a, &b}) {
    l->recompute.reset();
    l->offload.reset();
    l->label.clear();
    l->summary.clear();
    l->highlights.clear();
  }
  return a == b;
}

// Ranked layouts the search keeps per suggestion, so that kSuggestedLayouts distinct parallel
// layouts remain once the slower recompute and offload settings of each are dropped.
constexpr int kRankedPerSuggestion = 8;

// The top layouts for `model` on `gpu`: the smallest cluster of whole nodes on which one fits;
// distinct parallel layouts, each with its fastest recompute and offload setting.
PairSearch predict_pair(const Catalog& catalog, const Model& model, const Gpu& gpu,
                        const std::vector<MeasuredLayout>& measured,
                        const SpeedCalibration& calibration) {
  PairSearch search;
  PairPrediction& out = search.prediction;
  out.model = model.name;
  out.gpu_type = gpu.type;
  if (model.shape.layers > kMaxSuggestedLayers) {
    out.no_layout_reason = fmt::format(
        "{} has {} layers; the site searches models of up to {} (run openrecipes plan for it)",
        model.name, model.shape.layers, kMaxSuggestedLayers);
    return search;
  }
  int per_node = gpu.per_node > 0 ? gpu.per_node : 1;
  if (per_node > kMaxSuggestedGpus) {
    out.no_layout_reason =
        fmt::format("one {} node holds {} GPUs, more than the {} the site searches", gpu.type,
                    per_node, kMaxSuggestedGpus);
    return search;
  }
  for (int gpus = per_node; gpus <= kMaxSuggestedGpus; gpus *= 2) {
    PlanArguments arguments;
    arguments.model = model.name;
    arguments.gpu = gpu.type;
    arguments.gpus = gpus;
    Problems problems;
    std::optional<PlanRequest> request = resolve_plan_request(catalog, arguments, problems);
    if (!request) {
      out.no_layout_reason =
          problems.empty() ? "the planner cannot take this pair" : problems.front().message;
      return search;
    }
    // No layout can fit where even the weights, gradients and optimizer state spread evenly
    // over every GPU would not: the next count, without a search.
    if (state_bytes_floor_per_gpu(request->model.shape, request->cluster, request->workload) >
        usable_bytes_per_gpu(request->cluster, request->memory)) {
      continue;
    }
    LayoutPlan plan = plan_layouts(*request, measured, calibration,
                                   static_cast<int>(kSuggestedLayouts) * kRankedPerSuggestion);
    if (plan.search.ranked.empty()) continue;
    out.gpus = gpus;
    search.cluster = request->cluster;
    search.workload = request->workload;
    for (std::size_t i = 0; i < plan.search.ranked.size() && out.layouts.size() < kSuggestedLayouts;
         ++i) {
      const LayoutPrediction& p = plan.search.ranked[i];
      if (std::any_of(search.layouts.begin(), search.layouts.end(),
                      [&](const Layout& kept) { return same_parallel_layout(kept, p.layout); }))
        continue;
      SuggestedLayout s;
      s.layout = p.layout.label;
      s.recompute = recompute_text(p.layout.recompute);
      s.dispatcher = dispatcher_name(p.layout, search.workload);
      s.tokens_per_s_per_gpu = p.speed.tokens_per_s_per_gpu;
      s.band = plan.ranked_bands[i].relative_error;
      s.unlike_measured = plan.ranked_bands[i].unlike_measured;
      s.memory_gb = p.memory.memory_bytes / 1e9;
      s.mfu = p.speed.mfu;
      s.usd_per_million_tokens = p.speed.usd_per_million_tokens;
      out.layouts.push_back(std::move(s));
      search.layouts.push_back(p.layout);
    }
    return search;
  }
  out.no_layout_reason =
      fmt::format("no layout is predicted to fit on up to {} GPUs under the protocol's workload",
                  kMaxSuggestedGpus);
  return search;
}

}  // namespace

const PairPrediction* SitePredictions::find(const std::string& model,
                                            const std::string& gpu_type) const {
  for (const PairPrediction& p : pairs) {
    if (p.model == model && p.gpu_type == gpu_type) return &p;
  }
  return nullptr;
}

SitePredictions predict_unmeasured_pairs(const CatalogCheck& check) {
  SitePredictions out;
  const Catalog& catalog = check.loaded->catalog;
  // The pairs without a verified recipe, and the config digest of every model.
  std::vector<std::pair<const Model*, const Gpu*>> unmeasured;
  std::map<std::string, std::string> digest_of;  // models.yaml name and slug -> config digest
  const RecipeRanks ranks(check.recipes);
  for (const Model& model : catalog.models) {
    std::string digest = model_config_digest(catalog, model);
    digest_of[model.name] = digest;
    digest_of[model.slug] = digest;
    for (const Gpu& gpu : catalog.gpus) {
      if (ranks.of(model.name, gpu.type).empty()) unmeasured.emplace_back(&model, &gpu);
    }
  }
  if (unmeasured.empty()) return out;

  std::vector<MeasuredLayout> measured = distinct_measured_layouts(catalog, check.recipes);
  if (measured.empty()) {
    // As `plan` refuses (rule plan.no_recipes): the speed model is calibrated on the catalog's
    // verified recipes, and an uncalibrated guess is not worth a page.
    for (const auto& [model, gpu] : unmeasured) {
      out.pairs.push_back({model->name,
                           gpu->type,
                           0,
                           {},
                           "the planner is calibrated on the catalog's verified recipes, and there "
                           "is none yet"});
    }
    return out;
  }
  if (check.measurements) {
    PublishedLayouts published =
        published_layouts(catalog.root, *check.measurements, catalog.gpus, &catalog.models);
    measured.insert(measured.end(), published.layouts.begin(), published.layouts.end());
  }
  SpeedCalibration calibration = calibrate_speed_model(measured);
  out.mape = calibration.mape;
  out.calibrated_rows = measured.size();

  // One search per distinct (config, GPU type); copies under other names reuse it.
  std::map<std::string, std::size_t> first_of;  // digest|gpu -> index into `searched`
  std::vector<std::size_t> search_of(unmeasured.size());
  std::vector<std::size_t> searched;  // indices into `unmeasured` that are searched
  for (std::size_t i = 0; i < unmeasured.size(); ++i) {
    std::string key = digest_of[unmeasured[i].first->name] + "|" + unmeasured[i].second->type;
    auto [it, inserted] = first_of.emplace(key, searched.size());
    if (inserted) searched.push_back(i);
    search_of[i] = it->second;
  }
  std::vector<PairSearch> results(searched.size());
  parallel_for(searched.size(), [&](std::size_t k) {
    const auto& [model, gpu] = unmeasured[searched[k]];
    results[k] = predict_pair(catalog, *model, *gpu, measured, calibration);
  });
  for (std::size_t i = 0; i < unmeasured.size(); ++i) {
    const PairSearch& search = results[search_of[i]];
    const Model& model = *unmeasured[i].first;
    PairPrediction p = search.prediction;
    p.model = model.name;  // a copy's page and commands name the copy
    for (std::size_t j = 0; j < p.layouts.size(); ++j) {
      p.layouts[j].export_arguments =
          layout_flags_text(model.slug, search.cluster, search.workload, search.layouts[j]);
    }
    out.pairs.push_back(std::move(p));
  }
  return out;
}

}  // namespace openrecipes
