#include "cli/planner_context.h"

#include <fmt/format.h>

#include <filesystem>

#include "layout/layout_text.h"

namespace openrecipes::cli {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::optional<PlannerContext> load_planner_context(const GlobalOptions& global, const std::string& command) {
  std::optional<std::filesystem::path> root = resolve_root(global);
  if (!root) return std::nullopt;
  PlannerContext context;
  context.checked = check_catalog(*root, {}, *root);
  if (!context.checked.loaded) {
    for (const Problem& problem : context.checked.problems) fmt::print(stderr, "{}\n", format_problem_line(problem));
    return std::nullopt;
  }
  for (const Problem& problem : context.checked.problems) {
    fmt::print(stderr, "openrecipes {}: warning: left out of the calibration: {}\n", command,
               format_problem_line(problem));
  }
  Problems problems;
  context.rules = load_argument_rules(*root, problems);
  if (!context.rules) {
    for (const Problem& problem : problems) fmt::print(stderr, "{}\n", format_problem_line(problem));
    return std::nullopt;
  }
  context.measured = measured_layouts(context.catalog(), context.checked.recipes);
  context.calibration = calibrate_speed_model(context.measured);
  return context;
}

std::optional<ModelChoice> resolve_model(const Catalog& catalog, const std::string& text, const std::string& command) {
  for (const Model& model : catalog.models) {
    if (lower(model.name) == lower(text) || lower(model.slug) == lower(text)) {
      return ModelChoice{model.name, model.family, model.shape, true};
    }
  }
  std::error_code ec;
  if (!std::filesystem::exists(text, ec)) {
    std::string known;
    for (const Model& model : catalog.models) known += (known.empty() ? "" : ", ") + model.name;
    fmt::print(stderr,
               "openrecipes {}: --model {}: not a catalog model and no such file (expected one of {}, or a "
               "Hugging Face config.json)\n",
               command, text, known);
    return std::nullopt;
  }
  Problems problems;
  std::optional<ModelShape> shape = model_shape_from_file(text, "", problems);
  if (!shape) {
    for (const Problem& problem : problems) fmt::print(stderr, "{}\n", format_problem_line(problem));
    return std::nullopt;
  }
  std::filesystem::path path(text);
  // models/<slug>/config.json names the model by its folder; any other file by its own name.
  std::string name = std::filesystem::is_directory(path, ec) ? path.filename().string()
                     : path.filename() == "config.json" ? path.parent_path().filename().string()
                                                        : path.stem().string();
  if (name.empty() || name == ".") name = shape->model_type;
  shape->name = name;
  return ModelChoice{name, "", *shape, false};
}

const Gpu* resolve_gpu(const Catalog& catalog, const std::string& text, const std::string& command) {
  for (const Gpu& gpu : catalog.gpus) {
    if (lower(gpu.type) == lower(text) || lower(gpu.slug) == lower(text)) return &gpu;
  }
  std::string known;
  for (const Gpu& gpu : catalog.gpus) known += (known.empty() ? "" : ", ") + gpu.type;
  fmt::print(stderr, "openrecipes {}: --gpu {}: not in gpus.yaml (expected one of {})\n", command, text, known);
  return nullptr;
}

std::optional<Precision> resolve_precision(const std::string& text, const std::string& command) {
  if (text == "bf16") return Precision::kBf16;
  if (text == "fp8") return Precision::kFp8;
  fmt::print(stderr, "openrecipes {}: --precision {}: expected bf16 or fp8\n", command, text);
  return std::nullopt;
}

std::optional<Layout> parse_layout_arguments(const LayoutArguments& arguments, const ModelShape& model,
                                             const ClusterShape& cluster, std::int64_t row_tokens,
                                             const std::string& command) {
  std::string error;
  std::optional<Layout> layout = parse_layout_text(arguments.layout, row_tokens, error);
  if (!layout) {
    fmt::print(stderr, "openrecipes {}: --layout: {}\n", command, error);
    return std::nullopt;
  }
  std::optional<std::optional<Recompute>> recompute = parse_recompute_text(arguments.recompute, error);
  if (!recompute) {
    fmt::print(stderr, "openrecipes {}: --recompute: {}\n", command, error);
    return std::nullopt;
  }
  layout->recompute = *recompute;
  if (!arguments.layer_split.empty()) {
    std::optional<LayerSplit> split = parse_layer_split_text(arguments.layer_split, error);
    if (!split) {
      fmt::print(stderr, "openrecipes {}: --layer-split: {}\n", command, error);
      return std::nullopt;
    }
    layout->layer_split = split;
  }
  if (!arguments.dispatcher.empty()) layout->dispatcher = arguments.dispatcher;
  if (model.is_moe() && layout->dispatcher.empty()) layout->dispatcher = "alltoall";
  if (!model.is_moe()) layout->dispatcher.clear();
  int dp = implied_data_parallel(cluster, *layout);
  if (layout->dp > 0 && dp > 0 && layout->dp != dp) {
    fmt::print(stderr, "openrecipes {}: --layout DP{}: DP is implied by W / (TP x PP x CP) = {}\n", command,
               layout->dp, dp);
    return std::nullopt;
  }
  return layout;
}

bool report_layout_violations(const ModelShape& model, const ClusterShape& cluster, const PlanWorkload& workload,
                              const Layout& layout, const std::string& command) {
  std::vector<LayoutViolation> violations = check_layout(model, cluster, workload, layout);
  if (violations.empty()) return true;
  fmt::print(stderr, "openrecipes {}: {} on {} x {} is not a legal layout of {}:\n", command, layout_text(layout),
             cluster.gpus, cluster.gpu.type, model.name);
  for (const LayoutViolation& v : violations) {
    fmt::print(stderr, "  {}: {}: {} (expected {}, found {})\n", layout_rule_id(v.rule), v.field, v.message,
               v.expected, v.found);
  }
  return false;
}

}  // namespace openrecipes::cli
