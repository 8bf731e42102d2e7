#include "cli/plan_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/planner_context.h"
#include "plan/layout_search.h"
#include "layout/layout_text.h"
#include "plan/plan_report.h"
#include "base/number_format.h"

namespace openrecipes::cli {
namespace {

struct PlanOptions {
  std::string model;
  std::string gpu;
  int gpus = 0;
  int per_node = 0;
  std::int64_t seq_length = kRowTokens;
  std::int64_t global_batch = kGlobalBatchRows;
  std::string precision = "bf16";
  int top = 10;
  std::string layout;
  std::string recompute = "none";
  std::string layer_split;
  std::string dispatcher;
  double headroom = 0.10;
  bool explain = false;
  bool calibration = false;
  std::string format = "text";
};

// A catalog recipe measured on exactly this layout, model and cluster, if any.
const MeasuredLayout* measured_match(const std::vector<MeasuredLayout>& measured, const std::string& model,
                                     const ClusterShape& cluster, const PlanWorkload& workload, const Layout& layout) {
  for (const MeasuredLayout& m : measured) {
    if (m.model.name == model && m.cluster.gpu.type == cluster.gpu.type && m.cluster.gpus == cluster.gpus &&
        m.workload.row_tokens == workload.row_tokens && m.workload.global_batch == workload.global_batch &&
        same_layout(m.layout, layout)) {
      return &m;
    }
  }
  return nullptr;
}

std::string recipe_stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.size() > 5 ? name.substr(0, name.size() - 5) : name;
}

int run_calibration(const PlannerContext& context, const PlanOptions& options) {
  if (options.format == "json") {
    fmt::print("{}\n", calibration_to_json(context.calibration).dump(2));
  } else {
    fmt::print("{}", calibration_text(context.calibration));
  }
  return kExitOk;
}

int run_plan(const GlobalOptions& global, const PlanOptions& options) {
  if (!std::isfinite(options.headroom)) {
    fmt::print(stderr, "openrecipes plan: --headroom: expected a fraction from 0 to 0.9\n");
    return kExitUsage;
  }
  std::optional<PlannerContext> context = load_planner_context(global, "plan");
  if (!context) return kExitProblems;
  if (options.calibration && options.model.empty()) return run_calibration(*context, options);
  if (options.model.empty() || options.gpu.empty() || options.gpus < 1) {
    fmt::print(stderr, "openrecipes plan: give --model M --gpu G --gpus N (or --calibration)\n");
    return kExitUsage;
  }
  std::optional<ModelChoice> model = resolve_model(context->catalog(), options.model, "plan");
  if (!model) return kExitProblems;
  const Gpu* gpu = resolve_gpu(context->catalog(), options.gpu, "plan");
  if (!gpu) return kExitUsage;
  std::optional<Precision> precision = resolve_precision(options.precision, "plan");
  if (!precision) return kExitUsage;
  ClusterShape cluster = cluster_of(*gpu, options.gpus, options.per_node);
  if (cluster.gpus % cluster.per_node != 0 && cluster.gpus > cluster.per_node) {
    fmt::print(stderr, "openrecipes plan: --gpus {}: expected a multiple of the {} GPUs per node (or fewer)\n",
               cluster.gpus, cluster.per_node);
    return kExitUsage;
  }
  PlanWorkload workload{options.seq_length, options.global_batch, *precision};
  MemoryOptions memory{options.headroom};
  const SpeedParameters& speed = context->calibration.parameters;

  if (!options.layout.empty()) {
    std::optional<Layout> layout = parse_layout_arguments(
        {options.layout, options.recompute, options.layer_split, options.dispatcher}, model->shape, cluster,
        workload.row_tokens, "plan");
    if (!layout) return kExitUsage;
    if (!report_layout_violations(model->shape, cluster, workload, *layout, "plan")) return kExitProblems;
    LayoutPrediction p = predict_layout(model->shape, cluster, workload, *layout, speed, memory);
    const MeasuredLayout* measured = measured_match(context->measured, model->name, cluster, workload, p.layout);
    if (options.format == "json") {
      nlohmann::json j = prediction_to_json(p, true);
      j["measured"] = measured ? nlohmann::json{{"recipe", measured->name},
                                               {"tokens_per_s_per_gpu", measured->tokens_per_s_per_gpu}}
                               : nlohmann::json(nullptr);
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("{} on {} x {} ({} per node), {}: {} {}\n", model->name, cluster.gpus, cluster.gpu.type, cluster.per_node,
                 precision_name(workload.precision), p.layout.label, recompute_text(p.layout.recompute));
      if (measured) {
        fmt::print("measured: {} tokens/s per GPU ({})\n", format_thousands(measured->tokens_per_s_per_gpu, 2),
                   measured->name);
      }
      fmt::print("\n{}", prediction_explanation_text(p));
    }
    return kExitOk;
  }

  SearchOptions search;
  search.top = options.top;
  search.speed = speed;
  search.memory = memory;
  LayoutSearchResult result = search_layouts(model->shape, cluster, workload, search);

  // The catalog's recipes for this model and GPU type, predicted on their own layouts.
  struct CatalogLine {
    const MeasuredLayout* measured;
    LayoutPrediction prediction;
  };
  std::vector<CatalogLine> catalog_lines;
  for (const MeasuredLayout& m : context->measured) {
    if (m.model.name != model->name || m.cluster.gpu.type != cluster.gpu.type) continue;
    catalog_lines.push_back({&m, predict_layout(m.model, m.cluster, m.workload, m.layout, speed, memory)});
  }

  if (options.format == "json") {
    nlohmann::json layouts = nlohmann::json::array();
    int rank = 0;
    for (const LayoutPrediction& p : result.ranked) {
      nlohmann::json j = prediction_to_json(p, false);
      j["rank"] = ++rank;
      const MeasuredLayout* m = measured_match(context->measured, model->name, cluster, workload, p.layout);
      j["measured"] = m ? nlohmann::json{{"recipe", m->name}, {"tokens_per_s_per_gpu", m->tokens_per_s_per_gpu}}
                        : nlohmann::json(nullptr);
      layouts.push_back(j);
    }
    nlohmann::json catalog = nlohmann::json::array();
    for (const CatalogLine& line : catalog_lines) {
      nlohmann::json j = prediction_to_json(line.prediction, false);
      j["recipe"] = line.measured->name;
      j["gpus"] = line.measured->cluster.gpus;
      j["measured_tokens_per_s_per_gpu"] = line.measured->tokens_per_s_per_gpu;
      catalog.push_back(j);
    }
    nlohmann::json rejected = nlohmann::json::array();
    for (const RuleRejections& r : result.rejected) {
      rejected.push_back({{"rule", layout_rule_id(r.rule)},
                          {"text", layout_rule_text(r.rule)},
                          {"count", r.count},
                          {"example", layout_to_json(r.example)},
                          {"example_message", r.example_violation.message}});
    }
    nlohmann::json out = {{"model", model->name},
                          {"gpu", cluster.gpu.type},
                          {"gpus", cluster.gpus},
                          {"per_node", cluster.per_node},
                          {"seq_length", workload.row_tokens},
                          {"global_batch", workload.global_batch},
                          {"precision", precision_name(workload.precision)},
                          {"headroom_fraction", memory.headroom_fraction},
                          {"searched", {{"candidates", result.candidates}, {"legal", result.legal}, {"fitting", result.fitting}}},
                          {"layouts", layouts},
                          {"catalog_recipes", catalog},
                          {"rejected_by_rule", rejected},
                          {"rejected_by_memory", result.rejected_by_memory},
                          {"calibration", calibration_to_json(context->calibration)}};
    fmt::print("{}\n", out.dump(2));
    return result.ranked.empty() ? kExitProblems : kExitOk;
  }

  fmt::print("{} on {} x {} ({} per node): rows of {} tokens, global batch {}, {}\n", model->name, cluster.gpus,
             cluster.gpu.type, cluster.per_node, format_count(workload.row_tokens), workload.global_batch,
             precision_name(workload.precision));
  fmt::print("searched {} layouts: {} legal, {} predicted to fit in {:.1f} GB ({:.0f}% headroom of {} GB)\n",
             format_count(result.candidates), format_count(result.legal), format_count(result.fitting),
             cluster.gpu.memory_gb * (1 - memory.headroom_fraction), memory.headroom_fraction * 100, cluster.gpu.memory_gb);
  double low = 0, high = 0;
  for (const CalibrationRow& row : context->calibration.rows) {
    low = std::min(low, row.leave_one_out_error);
    high = std::max(high, row.leave_one_out_error);
  }
  fmt::print("speed model calibrated on {} catalog recipes, leave-one-out error {:+.1f}% to {:+.1f}% (plan "
             "--calibration); layouts unlike them are extrapolations\n\n",
             context->measured.size(), 100 * low, 100 * high);
  if (result.ranked.empty()) {
    fmt::print("no legal layout is predicted to fit; see --explain\n");
  } else {
    std::vector<std::vector<std::string>> rows = {
        {"rank", "layout", "recompute", "tokens/s/GPU", "memory GB", "MFU", "$/1M tokens", "measured"}};
    int rank = 0;
    for (const LayoutPrediction& p : result.ranked) {
      const MeasuredLayout* m = measured_match(context->measured, model->name, cluster, workload, p.layout);
      std::string split = p.layout.layer_split
                              ? fmt::format(" split {},{}", p.layout.layer_split->first, p.layout.layer_split->last)
                              : "";
      rows.push_back({fmt::format("{}", ++rank), p.layout.label + split + fmt::format(" MBS{}", p.layout.rows_per_microbatch),
                      recompute_text(p.layout.recompute), format_thousands(p.speed.tokens_per_s_per_gpu, 0),
                      fmt::format("{:.1f}", p.memory.memory_bytes / 1e9), format_fraction_percent(p.speed.mfu, 1),
                      format_usd(p.speed.usd_per_million_tokens),
                      m ? format_thousands(m->tokens_per_s_per_gpu, 1) + " (" + recipe_stem(m->name) + ")" : ""});
    }
    fmt::print("{}", aligned_table(rows, {true, false, false, true, true, true, true, false}));
  }
  if (!catalog_lines.empty()) {
    fmt::print("\ncatalog recipes of {} on {}, measured beside predicted:\n", model->name, cluster.gpu.type);
    std::vector<std::vector<std::string>> rows = {
        {"recipe", "GPUs", "layout", "recompute", "measured", "predicted", "error", "memory GB"}};
    for (const CatalogLine& line : catalog_lines) {
      double measured = line.measured->tokens_per_s_per_gpu;
      double predicted = line.prediction.speed.tokens_per_s_per_gpu;
      rows.push_back({line.measured->name, fmt::format("{}", line.measured->cluster.gpus), line.prediction.layout.label,
                      recompute_text(line.prediction.layout.recompute) +
                          (line.prediction.layout.dispatcher == "flex" ? " flex" : ""),
                      format_thousands(measured, 1), format_thousands(predicted, 1),
                      fmt::format("{:+.1f}%", 100 * (predicted - measured) / measured),
                      fmt::format("{:.1f}", line.prediction.memory.memory_bytes / 1e9)});
    }
    fmt::print("{}", aligned_table(rows, {false, true, false, false, true, true, true, true}));
  }
  if (options.explain) {
    fmt::print("\nrejected by the layout rules:\n");
    std::vector<std::vector<std::string>> rows = {{"rule", "layouts", "example", "why"}};
    for (const RuleRejections& r : result.rejected) {
      rows.push_back({layout_rule_id(r.rule), format_count(r.count), layout_text(r.example),
                      fmt::format("{} (expected {}, found {})", r.example_violation.message,
                                  r.example_violation.expected, r.example_violation.found)});
    }
    fmt::print("{}", aligned_table(rows, {false, true, false, false}));
    fmt::print("rejected by the memory model: {} legal layouts predicted not to fit\n",
               format_count(result.rejected_by_memory));
    if (result.memory_example) {
      const LayoutPrediction& e = *result.memory_example;
      fmt::print("  closest to fitting: {} {} needs {:.2f} GB, {:.2f} GB over the {:.2f} GB usable\n",
                 layout_text(e.layout), recompute_text(e.layout.recompute), e.memory.memory_bytes / 1e9,
                 (e.memory.memory_bytes - e.memory.usable_bytes) / 1e9, e.memory.usable_bytes / 1e9);
    }
  }
  std::vector<std::string> left_out;
  if (!result.ranked.empty()) left_out = result.ranked.front().memory.left_out;
  if (!left_out.empty()) fmt::print("\nthe memory model leaves out: {}\n", fmt::join(left_out, "; "));
  return result.ranked.empty() ? kExitProblems : kExitOk;
}

}  // namespace

void add_plan_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* plan = app.add_subcommand(
      "plan", "Rank every legal layout that fits by predicted tokens/s per GPU, or explain one layout");
  plan->add_option("--model", options->model, "Catalog model (name or slug) or a Hugging Face config.json");
  plan->add_option("--gpu", options->gpu, "GPU type from gpus.yaml (e.g. H200)");
  plan->add_option("--gpus", options->gpus, "GPUs in all")->check(CLI::Range(1, 1 << 20));
  plan->add_option("--per-node", options->per_node, "GPUs per node (default: the GPU type's, gpus.yaml)")
      ->check(CLI::Range(1, 1 << 10));
  plan->add_option("--seq-length", options->seq_length, "Tokens per row (default 8192, the protocol's)")
      ->check(CLI::Range(static_cast<std::int64_t>(1), static_cast<std::int64_t>(1) << 24));
  plan->add_option("--global-batch", options->global_batch, "Rows per step (default 128, the protocol's)")
      ->check(CLI::Range(static_cast<std::int64_t>(1), static_cast<std::int64_t>(1) << 24));
  plan->add_option("--precision", options->precision, "bf16 (default) or fp8");
  plan->add_option("--top", options->top, "Layouts to list (default 10)")->check(CLI::Range(1, 10000));
  plan->add_option("--layout", options->layout,
                   "Predict one layout, e.g. \"TP2 PP8 VPP4 EP32 ETP1 CP1 MBS1\" (omitted sizes are 1; DP implied)");
  plan->add_option("--recompute", options->recompute,
                   "With --layout: none (default), selective, full, full:uniform:N or full:block:N");
  plan->add_option("--layer-split", options->layer_split, "With --layout: FIRST,LAST layers on the first/last stage");
  plan->add_option("--dispatcher", options->dispatcher, "With --layout: alltoall (default), flex or allgather")
      ->check(CLI::IsMember({"alltoall", "flex", "allgather"}));
  plan->add_option("--headroom", options->headroom,
                   "Fraction of GPU memory kept free for what the memory model leaves out (default 0.10)")
      ->check(CLI::Range(0.0, 0.9));
  plan->add_flag("--explain", options->explain, "Show why layouts were rejected");
  plan->add_flag("--calibration", options->calibration,
                 "Show the speed model's fit on the catalog and each recipe's leave-one-out error");
  plan->add_option("--format", options->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
  plan->callback([&global, &exit_code, options] { exit_code = run_plan(global, *options); });
}

}  // namespace openrecipes::cli
