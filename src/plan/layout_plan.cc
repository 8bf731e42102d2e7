#include "plan/layout_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "layout/layout_rules.h"
#include "layout/layout_text.h"
#include "layout/pipeline_layout.h"
#include "plan/calibration_report.h"
#include "plan/memory_model.h"
#include "plan/plan_report.h"
#include "plan/run_setting_flags.h"
#include "plan/speed_model.h"

namespace openrecipes {
namespace {

std::string recipe_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.size() > 5 ? name.substr(0, name.size() - 5) : name;
}

// The run settings `workload` switches on, as Megatron-LM's flags spell them (run_setting_flags,
// the backend whatever the dispatcher), and the fused expert MLP, a published run's setting with
// no Megatron-LM flag, as Megatron-Bridge names it.
std::vector<std::string> run_settings_shown(const PlanWorkload& workload) {
  std::vector<std::string> flags = run_setting_flags(workload, true);
  if (workload.fused_expert_mlp) flags.push_back("cutedsl_fused_grouped_mlp");
  return flags;
}

std::string run_settings_text(const PlanWorkload& workload) {
  std::vector<std::string> flags = run_settings_shown(workload);
  return flags.empty() ? "Megatron-LM's defaults" : fmt::format("{}", fmt::join(flags, " "));
}

nlohmann::json measured_json(const MeasuredLayout* m) {
  return m ? nlohmann::json{{"recipe", m->name},
                            {"tokens_per_s_per_gpu", m->tokens_per_s_per_gpu},
                            {"run_settings", run_settings_shown(m->workload)}}
           : nlohmann::json(nullptr);
}

nlohmann::json band_json(const PredictionBand& b) {
  return {{"relative_error", b.relative_error},
          {"rows", b.rows},
          {"nearest", b.nearest},
          {"nearest_distance", b.nearest_distance},
          {"unlike_measured", b.unlike_measured}};
}

// "+-9%", with "unlike anything measured" when nothing near was measured.
std::string band_text(const PredictionBand& b) {
  if (b.rows == 0) return "no band: nothing measured";
  return fmt::format("±{:.0f}%{}", 100 * b.relative_error,
                     b.unlike_measured ? ", unlike anything measured" : "");
}

// A measured tokens/s per GPU as it was published: a recipe's to two decimals (9,448.16), a
// table's whole figure without any (3,541).
std::string measured_figure(double tokens_per_s_per_gpu) {
  return format_thousands(tokens_per_s_per_gpu,
                          std::floor(tokens_per_s_per_gpu) == tokens_per_s_per_gpu ? 0 : 2);
}

// How the top prediction compares with the best measured layout of the pair.
std::string gap_text(double predicted, const PredictionBand& band, const MeasuredLayout* best,
                     const std::string& model, const std::string& gpu_type) {
  if (!best)
    return fmt::format("nothing measured for {} on {} at this precision and row length\n", model,
                       gpu_type);
  double gap = (predicted - best->tokens_per_s_per_gpu) / best->tokens_per_s_per_gpu;
  bool beyond = std::abs(gap) > band.relative_error;
  return fmt::format(
      "best measured for {} on {} at {}, {}-token rows: {} tokens/s per GPU on {} GPUs, global "
      "batch {} ({}); predicted {:+.1f}% from it, {} the band of ±{:.0f}%\n",
      model, gpu_type, precision_name(best->workload.precision),
      format_count(best->workload.row_tokens), measured_figure(best->tokens_per_s_per_gpu),
      best->cluster.gpus, format_count(best->workload.global_batch), best->name, 100 * gap,
      beyond ? "beyond" : "within", 100 * band.relative_error);
}

nlohmann::json ranked_json(const LayoutPlan& plan) {
  nlohmann::json layouts = nlohmann::json::array();
  for (std::size_t i = 0; i < plan.search.ranked.size(); ++i) {
    nlohmann::json j = prediction_to_json(plan.search.ranked[i], false);
    j["rank"] = static_cast<int>(i + 1);
    j["measured"] = measured_json(plan.ranked_measured[i]);
    j["band"] = band_json(plan.ranked_bands[i]);
    layouts.push_back(j);
  }
  return layouts;
}

nlohmann::json catalog_json(const LayoutPlan& plan) {
  nlohmann::json catalog = nlohmann::json::array();
  for (const CatalogComparison& line : plan.catalog) {
    nlohmann::json j = prediction_to_json(line.prediction, false);
    j["recipe"] = line.measured->name;
    j["gpus"] = line.measured->cluster.gpus;
    j["measured_tokens_per_s_per_gpu"] = line.measured->tokens_per_s_per_gpu;
    catalog.push_back(j);
  }
  return catalog;
}

nlohmann::json rejected_json(const LayoutSearchResult& result) {
  nlohmann::json rejected = nlohmann::json::array();
  for (const RuleRejections& r : result.rejected) {
    rejected.push_back({{"rule", layout_rule_id(r.rule)},
                        {"text", layout_rule_text(r.rule)},
                        {"count", r.count},
                        {"example", layout_to_json(r.example)},
                        {"example_message", r.example_violation.message}});
  }
  return rejected;
}

std::string headline_text(const LayoutPlan& plan) {
  const ClusterShape& cluster = plan.cluster;
  const LayoutSearchResult& result = plan.search;
  std::string out = fmt::format(
      "{} on {} x {} ({} per node): rows of {} token{}, global batch {}, {}\n", plan.model_name,
      cluster.gpus, cluster.gpu.type, cluster.per_node, format_count(plan.workload.row_tokens),
      plan.workload.row_tokens == 1 ? "" : "s", format_count(plan.workload.global_batch),
      precision_name(plan.workload.precision));
  out += fmt::format("run settings: {}\n", run_settings_text(plan.workload));
  out += fmt::format(
      "searched {} layouts: {} legal, {} predicted to fit in {:.1f} GB ({:.0f}% headroom of {} "
      "GB)\n",
      format_count(result.candidates), format_count(result.legal), format_count(result.fitting),
      usable_bytes_per_gpu(cluster, plan.memory) / 1e9, plan.memory.headroom_fraction * 100,
      cluster.gpu.memory_gb);
  std::size_t published = 0;
  for (const CalibrationRow& row : plan.calibration->rows) published += row.published ? 1 : 0;
  out += fmt::format(
      "speed model calibrated on {} measured layouts ({} catalog recipes, {} published), "
      "leave-one-model-out MAPE {:.1f}% (plan --calibration); each prediction carries the band of "
      "its nearest measured layouts\n\n",
      plan.calibrated_on, plan.calibrated_on - published, published, 100 * plan.calibration->mape);
  return out;
}

std::string ranked_text(const LayoutPlan& plan) {
  if (plan.search.ranked.empty()) {
    // Say which it is: no layout obeys the rules (under the run settings given), or every legal
    // one is predicted to run out of memory.
    return plan.search.legal == 0
               ? "no layout is legal under these run settings; see --explain for the rules each "
                 "breaks\n"
               : "no legal layout is predicted to fit in memory; see --explain\n";
  }
  // A MoE model's layouts each name their dispatcher (the search tries several); a dense one's
  // have none, and no column.
  const bool dispatchers =
      std::any_of(plan.search.ranked.begin(), plan.search.ranked.end(),
                  [](const LayoutPrediction& p) { return !p.layout.dispatcher.empty(); });
  std::vector<std::vector<std::string>> rows = {{"rank", "layout", "recompute", "dispatcher",
                                                 "tokens/s/GPU", "band", "memory GB", "MFU",
                                                 "$/1M tokens", "measured"}};
  for (std::size_t i = 0; i < plan.search.ranked.size(); ++i) {
    const LayoutPrediction& p = plan.search.ranked[i];
    const MeasuredLayout* m = plan.ranked_measured[i];
    std::string split = has_placement(p.layout) ? " " + placement_text(p.layout) : "";
    rows.push_back(
        {fmt::format("{}", i + 1),
         p.layout.label + split + fmt::format(" MBS{}", p.layout.rows_per_microbatch),
         recompute_text(p.layout.recompute), dispatcher_name(p.layout, plan.workload),
         format_thousands(p.speed.tokens_per_s_per_gpu, 0), band_text(plan.ranked_bands[i]),
         fmt::format("{:.1f}", p.memory.memory_bytes / 1e9),
         format_fraction_percent(p.speed.mfu, 1),
         predicted_usd_text(p.speed.usd_per_million_tokens),
         m ? format_thousands(m->tokens_per_s_per_gpu, 1) + " (" + recipe_stem(m->name) + ")"
           : std::string()});
  }
  std::vector<bool> right = {true, false, false, false, true, false, true, true, true, false};
  if (!dispatchers) erase_column(rows, right, 3);
  const LayoutPrediction& top = plan.search.ranked.front();
  return aligned_table(rows, right) + "\n" +
         gap_text(top.speed.tokens_per_s_per_gpu, plan.ranked_bands.front(), plan.best_measured,
                  plan.model_name, plan.cluster.gpu.type);
}

std::string catalog_text(const LayoutPlan& plan) {
  if (plan.catalog.empty()) return "";
  std::string out = fmt::format(
      "\nmeasured layouts of {} on {} (catalog recipes and published runs), measured beside "
      "predicted:\n",
      plan.model_name, plan.cluster.gpu.type);
  // A dispatcher column as the ranked table has, each run's own (its backend from its settings).
  const bool dispatchers = std::any_of(
      plan.catalog.begin(), plan.catalog.end(),
      [](const CatalogComparison& line) { return !line.prediction.layout.dispatcher.empty(); });
  std::vector<std::vector<std::string>> rows = {{"recipe", "GPUs", "layout", "recompute",
                                                 "dispatcher", "measured", "predicted", "error",
                                                 "memory GB"}};
  for (const CatalogComparison& line : plan.catalog) {
    double measured = line.measured->tokens_per_s_per_gpu;
    double predicted = line.prediction.speed.tokens_per_s_per_gpu;
    const Layout& layout = line.prediction.layout;
    rows.push_back({line.measured->name, fmt::format("{}", line.measured->cluster.gpus),
                    layout.label, recompute_text(layout.recompute),
                    dispatcher_name(layout, line.measured->workload), format_thousands(measured, 1),
                    format_thousands(predicted, 1),
                    fmt::format("{:+.1f}%", 100 * (predicted - measured) / measured),
                    fmt::format("{:.1f}", line.prediction.memory.memory_bytes / 1e9)});
  }
  std::vector<bool> right = {false, true, false, false, false, true, true, true, true};
  if (!dispatchers) erase_column(rows, right, 4);
  return out + aligned_table(rows, right);
}

// Whether `rule`'s example is the even split: no placement under a rule that judges the
// placement. `plan --layout` replaces the even split by the most balanced placement when PP x VPP
// does not divide the layers, so such an example is not refused there as it is shown.
bool is_even_split_example(const Layout& layout, LayoutRule rule) {
  return !has_placement(layout) &&
         (rule == LayoutRule::kPipelineLayers || rule == LayoutRule::kVirtualPipeline);
}

// The layout as `plan --layout` takes it back: the sizes, then the placement when there is one
// (an example's verdict can hang on it, as mesh.vpp's does on a layer split).
std::string example_text(const Layout& layout) {
  return has_placement(layout) ? layout_text(layout) + " " + placement_text(layout)
                               : layout_text(layout);
}

std::string explain_text(const LayoutSearchResult& result) {
  std::string out = "\nrejected by the layout rules:\n";
  std::vector<std::vector<std::string>> rows = {{"rule", "layouts", "example", "why"}};
  for (const RuleRejections& r : result.rejected) {
    rows.push_back(
        {layout_rule_id(r.rule), format_count(r.count),
         example_text(r.example) + (is_even_split_example(r.example, r.rule) ? " even split" : ""),
         fmt::format("{} (expected {}, found {})", r.example_violation.message,
                     r.example_violation.expected, r.example_violation.found)});
  }
  out += aligned_table(rows, {false, true, false, false});
  for (const RuleRejections& r : result.rejected) {
    if (!is_even_split_example(r.example, r.rule)) continue;
    out +=
        "  even split: the layers split evenly over PP x VPP; plan --layout with no placement "
        "takes the most balanced placement Megatron-LM accepts instead, which the search tries "
        "too\n";
    break;
  }
  out += fmt::format("rejected by the memory model: {} legal layouts predicted not to fit\n",
                     format_count(result.rejected_by_memory));
  if (result.memory_example) {
    const LayoutPrediction& e = *result.memory_example;
    // Under 10 MB over shows in MB: "0.00 GB over" read as fitting exactly.
    const double over = e.memory.memory_bytes - e.memory.usable_bytes;
    out += fmt::format(
        "  closest to fitting: {} {} needs {:.2f} GB, {} over the {:.2f} GB usable\n",
        example_text(e.layout), recompute_text(e.layout.recompute), e.memory.memory_bytes / 1e9,
        over < 1e7 ? fmt::format("{:.1f} MB", over / 1e6) : fmt::format("{:.2f} GB", over / 1e9),
        e.memory.usable_bytes / 1e9);
  }
  return out;
}

}  // namespace

const MeasuredLayout* measured_match(const std::vector<MeasuredLayout>& measured,
                                     const std::string& model, const ClusterShape& cluster,
                                     const PlanWorkload& workload, const Layout& layout) {
  for (const MeasuredLayout& m : measured) {
    if (m.model.name == model && m.cluster.gpu.type == cluster.gpu.type &&
        m.cluster.gpus == cluster.gpus && m.workload.row_tokens == workload.row_tokens &&
        m.workload.global_batch == workload.global_batch &&
        m.workload.precision == workload.precision &&
        m.workload.forced_balanced_routing == workload.forced_balanced_routing &&
        same_layout(m.layout, layout)) {
      return &m;
    }
  }
  return nullptr;
}

LayoutPlan plan_layouts(const PlanRequest& request, const std::vector<MeasuredLayout>& measured,
                        const SpeedCalibration& calibration, int top) {
  LayoutPlan plan{request.model.name,
                  request.cluster,
                  request.workload,
                  request.memory,
                  {},
                  {},
                  {},
                  &calibration,
                  measured.size(),
                  {},
                  nullptr};
  SearchOptions search;
  search.top = top;
  search.speed = calibration.parameters;
  search.memory = request.memory;
  if (!request.search_dispatchers.empty()) search.dispatchers = request.search_dispatchers;
  plan.search = search_layouts(request.model.shape, request.cluster, request.workload, search);
  for (const LayoutPrediction& p : plan.search.ranked) {
    plan.ranked_measured.push_back(
        measured_match(measured, plan.model_name, plan.cluster, plan.workload, p.layout));
    plan.ranked_bands.push_back(prediction_band(calibration, measured, request.model.shape,
                                                request.cluster, request.workload, p.layout));
  }
  plan.best_measured =
      best_measured(measured, plan.model_name, plan.cluster.gpu.type, plan.workload);
  for (const MeasuredLayout& m : measured) {
    if (m.model.name != plan.model_name || m.cluster.gpu.type != plan.cluster.gpu.type) continue;
    plan.catalog.push_back({&m, predict_layout(m.model, m.cluster, m.workload, m.layout,
                                               calibration.parameters, request.memory)});
  }
  return plan;
}

OneLayoutPlan plan_one_layout(const PlanRequest& request,
                              const std::vector<MeasuredLayout>& measured,
                              const SpeedCalibration& calibration) {
  OneLayoutPlan plan{
      request.model.name, request.cluster, request.workload, {}, nullptr, {}, nullptr, false};
  plan.prediction = predict_layout(request.model.shape, request.cluster, request.workload,
                                   *request.layout, calibration.parameters, request.memory);
  plan.measured = measured_match(measured, plan.model_name, plan.cluster, plan.workload,
                                 plan.prediction.layout);
  plan.band = prediction_band(calibration, measured, request.model.shape, request.cluster,
                              request.workload, plan.prediction.layout);
  plan.best_measured =
      best_measured(measured, plan.model_name, plan.cluster.gpu.type, plan.workload);
  plan.placement_chosen = request.placement_chosen;
  return plan;
}

nlohmann::json layout_plan_to_json(const LayoutPlan& plan) {
  const LayoutSearchResult& result = plan.search;
  return {
      {"model", plan.model_name},
      {"gpu", plan.cluster.gpu.type},
      {"gpus", plan.cluster.gpus},
      {"per_node", plan.cluster.per_node},
      {"seq_length", plan.workload.row_tokens},
      {"global_batch", plan.workload.global_batch},
      {"precision", precision_name(plan.workload.precision)},
      {"run_settings", run_settings_shown(plan.workload)},
      {"headroom_fraction", plan.memory.headroom_fraction},
      {"searched",
       {{"candidates", result.candidates}, {"legal", result.legal}, {"fitting", result.fitting}}},
      {"layouts", ranked_json(plan)},
      {"best_measured", measured_json(plan.best_measured)},
      {"catalog_recipes", catalog_json(plan)},
      {"rejected_by_rule", rejected_json(result)},
      {"rejected_by_memory", result.rejected_by_memory},
      {"calibration", calibration_to_json(*plan.calibration)}};
}

std::string layout_plan_text(const LayoutPlan& plan, bool explain) {
  std::string out = headline_text(plan) + ranked_text(plan) + catalog_text(plan);
  if (explain) out += explain_text(plan.search);
  if (!plan.search.ranked.empty())
    out += fmt::format("\nthe memory model leaves out: {}\n", fmt::join(memory_left_out(), "; "));
  return out;
}

nlohmann::json one_layout_plan_to_json(const OneLayoutPlan& plan) {
  nlohmann::json j = prediction_to_json(plan.prediction, true);
  j["run_settings"] = run_settings_shown(plan.workload);
  j["measured"] = measured_json(plan.measured);
  j["band"] = band_json(plan.band);
  j["best_measured"] = measured_json(plan.best_measured);
  j["placement_chosen"] = plan.placement_chosen;
  return j;
}

std::string one_layout_plan_text(const OneLayoutPlan& plan) {
  const Layout& layout = plan.prediction.layout;
  std::string out = fmt::format("{} on {} x {} ({} per node), {}: {} {}\n", plan.model_name,
                                plan.cluster.gpus, plan.cluster.gpu.type, plan.cluster.per_node,
                                precision_name(plan.workload.precision), layout.label,
                                recompute_text(layout.recompute));
  if (has_placement(layout)) {
    out += fmt::format("placement: {}{}\n", placement_text(layout),
                       plan.placement_chosen
                           ? fmt::format(" (chosen: PP{} x VPP{} does not divide the layers; the "
                                         "most balanced placement Megatron-LM accepts, as{})",
                                         layout.pp, layout.vpp, placement_flags_text(layout))
                           : "");
  }
  const std::string settings = run_settings_text(plan.workload);
  out += fmt::format("run settings: {}\n", settings);
  if (plan.measured) {
    // The same layout measured under other run settings is that run's figure, not this one's.
    const std::string its = run_settings_text(plan.measured->workload);
    out += fmt::format("measured: {} tokens/s per GPU ({}){}\n",
                       measured_figure(plan.measured->tokens_per_s_per_gpu), plan.measured->name,
                       its == settings ? "" : fmt::format(", run with other settings: {}", its));
  }
  out += fmt::format("predicted: {} tokens/s per GPU, {} (nearest measured: {})\n",
                     format_thousands(plan.prediction.speed.tokens_per_s_per_gpu, 0),
                     band_text(plan.band), plan.band.nearest.empty() ? "none" : plan.band.nearest);
  out += gap_text(plan.prediction.speed.tokens_per_s_per_gpu, plan.band, plan.best_measured,
                  plan.model_name, plan.cluster.gpu.type);
  return out + "\n" + prediction_explanation_text(plan.prediction);
}

}  // namespace openrecipes
