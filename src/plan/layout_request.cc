#include "plan/layout_request.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "base/ascii.h"
#include "layout/layout_rules.h"
#include "layout/layout_text.h"
#include "layout/pipeline_layout.h"
#include "plan/catalog_measurements.h"

namespace openrecipes {
namespace {

// A problem with the value of the command-line flag `field`.
void add_problem(Problems& problems, const std::string& field, const std::string& rule,
                 std::string message, std::string expected = "", std::string found = "") {
  problems.push_back(
      {"", {}, field, rule, std::move(message), std::move(expected), std::move(found)});
}

// The name a config file gives its model: models/<slug>/config.json by its folder, a folder by
// its own name, any other file by its stem.
std::string config_model_name(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return path.filename().string();
  if (path.filename() == "config.json") return path.parent_path().filename().string();
  return path.stem().string();
}

// With no placement in `layout` and PP x VPP not dividing the model's layers, gives the layout
// the most balanced placement Megatron-LM accepts and sets `chosen` (when not null).
void choose_placement(const ModelShape& model, Layout& layout, bool* chosen) {
  if (has_placement(layout) || layout.pp < 1 || layout.vpp < 1) return;
  if (model.layers % layout.pp == 0 && (model.layers / layout.pp) % layout.vpp == 0) return;
  std::optional<PlacementChoice> choice = balanced_placement(model, layout.pp, layout.vpp);
  if (!choice) return;  // the rules will say why (VPP without PP)
  choice->apply_to(layout);
  if (chosen) *chosen = true;
}

}  // namespace

const Model* find_catalog_model(const Catalog& catalog, const std::string& text) {
  const std::string wanted = ascii_lowercase(text);
  for (const Model& model : catalog.models) {
    if (ascii_lowercase(model.name) == wanted || ascii_lowercase(model.slug) == wanted)
      return &model;
  }
  return nullptr;
}

std::optional<ModelChoice> resolve_model(const Catalog& catalog, const std::string& text,
                                         Problems& problems) {
  if (const Model* model = find_catalog_model(catalog, text))
    return ModelChoice{model->name, model->family, model->shape, true};
  std::error_code ec;
  if (!std::filesystem::exists(text, ec)) {
    // A catalog of thousands of models is named by its first few, not listed.
    constexpr std::size_t kListed = 12;
    std::string known;
    for (std::size_t i = 0; i < catalog.models.size() && i < kListed; ++i)
      known += (known.empty() ? "" : ", ") + catalog.models[i].name;
    if (catalog.models.size() > kListed)
      known += fmt::format(" and {} more in models.yaml", catalog.models.size() - kListed);
    add_problem(problems, "--model", "arguments.model",
                fmt::format("{}: not a catalog model and no such file", text),
                fmt::format("one of {}, or a Hugging Face config.json", known), text);
    return std::nullopt;
  }
  std::optional<ModelShape> shape = model_shape_from_file(text, "", problems);
  if (!shape) return std::nullopt;
  std::string name = config_model_name(text);
  if (name.empty() || name == ".") name = shape->model_type;
  shape->name = name;
  return ModelChoice{name, "", *shape, false};
}

const Gpu* resolve_gpu(const Catalog& catalog, const std::string& text, Problems& problems) {
  const std::string wanted = ascii_lowercase(text);
  for (const Gpu& gpu : catalog.gpus) {
    if (ascii_lowercase(gpu.type) == wanted || ascii_lowercase(gpu.slug) == wanted) return &gpu;
  }
  std::string known;
  for (const Gpu& gpu : catalog.gpus) known += (known.empty() ? "" : ", ") + gpu.type;
  add_problem(problems, "--gpu", "arguments.gpu", fmt::format("{}: not in gpus.yaml", text),
              fmt::format("one of {}", known), text);
  return nullptr;
}

std::optional<Precision> resolve_precision(const std::string& text, Problems& problems) {
  if (std::optional<Precision> p = precision_from_name(text)) return p;
  add_problem(problems, "--precision", "arguments.precision",
              fmt::format("{}: not a precision", text), "bf16, fp8, mxfp8 or nvfp4", text);
  return std::nullopt;
}

bool check_precision_on_gpu(Precision precision, const Gpu& gpu, Problems& problems) {
  double peak = gpu.peak_bf16_dense_flop_per_s;
  std::string field = "peak_bf16_dense_flop_per_s";
  if (precision == Precision::kFp8) {
    peak = gpu.peak_fp8_dense_flop_per_s, field = "peak_fp8_dense_flop_per_s";
  } else if (precision == Precision::kMxfp8) {
    peak = gpu.peak_mxfp8_dense_flop_per_s, field = "peak_mxfp8_dense_flop_per_s";
  } else if (precision == Precision::kNvfp4) {
    peak = gpu.peak_nvfp4_dense_flop_per_s, field = "peak_nvfp4_dense_flop_per_s";
  }
  if (peak > 0) return true;
  add_problem(problems, "--precision", "arguments.precision",
              fmt::format("{}: {} has no tensor cores for it (gpus.yaml gives it no {})",
                          precision_name(precision), gpu.type, field),
              fmt::format("a precision {} runs", gpu.type), precision_name(precision));
  return false;
}

std::optional<ClusterShape> resolve_cluster(const Gpu& gpu, int gpus, int per_node,
                                            Problems& problems) {
  ClusterShape cluster = cluster_of(gpu, gpus, per_node);
  if (cluster.gpus > cluster.per_node && cluster.gpus % cluster.per_node != 0) {
    add_problem(
        problems, "--gpus", "arguments.whole_nodes",
        fmt::format("{}: not whole nodes of {} {} GPUs", cluster.gpus, cluster.per_node, gpu.type),
        fmt::format("a multiple of the {} GPUs per node (or fewer)", cluster.per_node),
        fmt::format("{}", cluster.gpus));
    return std::nullopt;
  }
  return cluster;
}

// True when `dispatcher` is empty (the default) or names a token dispatcher of Megatron-LM's
// --moe-token-dispatcher-type; else false and a Problem (field `--dispatcher`).
bool check_dispatcher(const std::string& dispatcher, Problems& problems) {
  if (dispatcher.empty() || dispatcher == "alltoall" || dispatcher == "flex" ||
      dispatcher == "allgather") {
    return true;
  }
  add_problem(problems, "--dispatcher", "arguments.dispatcher",
              fmt::format("{}: not a token dispatcher", dispatcher), "alltoall, flex or allgather",
              dispatcher);
  return false;
}

// The first placement or per-layout flag given, or null.
const char* placement_flag_given(const LayoutArguments& arguments) {
  if (!arguments.pipeline_layout.empty()) return "--pipeline-layout";
  if (!arguments.layer_split.empty()) return "--layer-split";
  if (arguments.account_for_embedding) return "--account-for-embedding-in-pipeline-split";
  if (arguments.account_for_loss) return "--account-for-loss-in-pipeline-split";
  return nullptr;
}

std::optional<Layout> resolve_layout(const LayoutArguments& arguments, const ModelShape& model,
                                     const ClusterShape& cluster, const PlanWorkload& workload,
                                     Problems& problems, bool* placement_chosen) {
  std::size_t before = problems.size();
  std::optional<Layout> layout = parse_layout_text(arguments.layout, workload.row_tokens, problems);
  std::optional<std::optional<Recompute>> recompute =
      parse_recompute_text(arguments.recompute, problems);
  std::optional<LayerSplit> split;
  if (!arguments.layer_split.empty())
    split = parse_layer_split_text(arguments.layer_split, problems);
  if (!arguments.pipeline_layout.empty())
    parse_pipeline_layout(arguments.pipeline_layout, "--pipeline-layout", problems);
  check_dispatcher(arguments.dispatcher, problems);
  if (!layout || problems.size() != before) return std::nullopt;
  layout->recompute = *recompute;
  layout->layer_split = split;
  layout->pipeline_layout = arguments.pipeline_layout;
  layout->account_for_embedding_in_pipeline_split = arguments.account_for_embedding;
  layout->account_for_loss_in_pipeline_split = arguments.account_for_loss;
  choose_placement(model, *layout, placement_chosen);
  if (!arguments.dispatcher.empty()) layout->dispatcher = arguments.dispatcher;
  if (model.is_moe() && layout->dispatcher.empty()) layout->dispatcher = "alltoall";
  if (!model.is_moe()) layout->dispatcher.clear();
  int dp = implied_data_parallel(cluster, *layout);
  if (layout->dp > 0 && dp > 0 && layout->dp != dp) {
    add_problem(problems, "--layout", "arguments.dp",
                fmt::format("DP{}: DP is implied by W / (TP x PP x CP) = {}", layout->dp, dp),
                fmt::format("DP{} or no DP", dp), fmt::format("DP{}", layout->dp));
    return std::nullopt;
  }
  for (const LayoutViolation& v : check_layout(model, cluster, workload, *layout)) {
    add_problem(problems, "--layout", layout_rule_id(v.rule),
                fmt::format("{} on {} x {} is not a legal layout of {}: {}: {}: {}",
                            layout_text(*layout), cluster.gpus, cluster.gpu.type, model.name,
                            layout_rule_id(v.rule), v.field, v.message),
                v.expected, v.found);
  }
  if (problems.size() != before) return std::nullopt;
  return layout;
}

std::optional<PlanRequest> resolve_plan_request(const Catalog& catalog,
                                                const PlanArguments& arguments,
                                                Problems& problems) {
  std::size_t before = problems.size();
  std::optional<ModelChoice> model = resolve_model(catalog, arguments.model, problems);
  const Gpu* gpu = resolve_gpu(catalog, arguments.gpu, problems);
  std::optional<Precision> precision = resolve_precision(arguments.precision, problems);
  if (!std::isfinite(arguments.headroom) || arguments.headroom < 0 || arguments.headroom > 0.9) {
    add_problem(problems, "--headroom", "arguments.headroom", "not a fraction of GPU memory",
                "a fraction from 0 to 0.9", fmt::format("{}", arguments.headroom));
  }
  const std::string& backend = arguments.settings.flex_backend;
  if (!backend.empty() && backend != "deepep" && backend != "hybridep") {
    add_problem(problems, "--moe-flex-dispatcher-backend", "arguments.flex_backend",
                "not a flex dispatcher backend", "deepep or hybridep", backend);
  }
  if (problems.size() != before) return std::nullopt;
  if (!check_precision_on_gpu(*precision, *gpu, problems)) return std::nullopt;
  std::optional<ClusterShape> cluster =
      resolve_cluster(*gpu, arguments.gpus, arguments.per_node, problems);
  if (!cluster) return std::nullopt;
  PlanRequest request{*model,
                      gpu,
                      *cluster,
                      {arguments.seq_length, arguments.global_batch, *precision},
                      MemoryOptions{arguments.headroom},
                      std::nullopt};
  request.run_settings = arguments.settings;
  add_given_run_settings(arguments.settings, request.workload);  // on Megatron-LM's defaults
  // A dense model routes no tokens: a dispatcher, a backend or an expert overlap named for it
  // would go unused (or, for the A2A/1F1B overlap, leave no legal layout to say why about).
  if (!model->shape.is_moe()) {
    const RunSettingArguments& s = arguments.settings;
    // What was found: the value given, or a switch's own name.
    const char* shared = "--moe-shared-expert-overlap";
    const char* a2a = "--overlap-moe-expert-parallel-comm";
    for (const auto& [flag, value] :
         {std::pair{"--dispatcher", arguments.layout.dispatcher},
          std::pair{"--moe-flex-dispatcher-backend", s.flex_backend},
          std::pair{shared, std::string(s.shared_expert_overlap ? shared : "")},
          std::pair{a2a, std::string(s.ep_a2a_overlap ? a2a : "")}}) {
      if (value.empty()) continue;
      add_problem(
          problems, flag, "arguments.dispatcher",
          fmt::format("{} is a dense model: no experts, so no token dispatcher", model->name),
          fmt::format("no {} (an MoE model's setting)", flag), value);
    }
    if (problems.size() != before) return std::nullopt;
  }
  // The backend is the flex dispatcher's: beside another dispatcher it would go unused.
  const std::string& dispatcher = arguments.layout.dispatcher;
  if (!backend.empty() && !dispatcher.empty() && dispatcher != "flex") {
    add_problem(
        problems, "--moe-flex-dispatcher-backend", "arguments.dispatcher",
        fmt::format("the backend of the flex dispatcher, given with --dispatcher {}", dispatcher),
        "--dispatcher flex, or no backend", backend);
    return std::nullopt;
  }
  if (!arguments.layout.layout.empty()) {
    request.layout = resolve_layout(arguments.layout, model->shape, *cluster, request.workload,
                                    problems, &request.placement_chosen);
    if (!request.layout) return std::nullopt;
    // The same for a layout on the default dispatcher (alltoall): its backend would go unused.
    if (!backend.empty() && request.layout->dispatcher != "flex") {
      add_problem(problems, "--moe-flex-dispatcher-backend", "arguments.dispatcher",
                  fmt::format("the backend of the flex dispatcher, given with a layout on the {} "
                              "dispatcher (the default without --dispatcher)",
                              request.layout->dispatcher),
                  "--dispatcher flex, or no backend", backend);
      return std::nullopt;
    }
    return request;
  }
  if (const char* flag = placement_flag_given(arguments.layout)) {
    // The search chooses every placement itself; a placement without a layout would be ignored.
    add_problem(problems, flag, "arguments.layout",
                fmt::format("{} places the layers of one layout: give it with --layout", flag),
                "--layout with it", "no --layout");
    return std::nullopt;
  }
  // Every layout would break the rule (Megatron-Core's TransformerConfig refuses the two overlaps
  // together): say why here rather than search to "0 legal".
  const std::string shared_rule = layout_rule_id(LayoutRule::kSharedExpertOverlap);
  if (request.workload.shared_expert_overlap && request.workload.ep_a2a_overlap) {
    add_problem(problems, "--moe-shared-expert-overlap", shared_rule,
                fmt::format("{}: the shared-expert overlap and the EP all-to-all overlap "
                            "(--overlap-moe-expert-parallel-comm) exclude each other",
                            shared_rule),
                "one of them", "both");
    return std::nullopt;
  }
  if (!arguments.layout.dispatcher.empty()) {
    if (!check_dispatcher(arguments.layout.dispatcher, problems)) return std::nullopt;
    if (request.workload.shared_expert_overlap && model->shape.shared_expert_ffn_hidden_size > 0 &&
        arguments.layout.dispatcher != "alltoall") {
      add_problem(problems, "--dispatcher", shared_rule,
                  fmt::format("{}: the shared-expert overlap (--moe-shared-expert-overlap) of a "
                              "model with shared experts needs the alltoall dispatcher",
                              shared_rule),
                  "alltoall, or no --moe-shared-expert-overlap", arguments.layout.dispatcher);
      return std::nullopt;
    }
    // Every layout would break the rule: say why here rather than search to "0 legal".
    if (request.workload.ep_a2a_overlap && arguments.layout.dispatcher == "allgather") {
      add_problem(problems, "--dispatcher", layout_rule_id(LayoutRule::kEpA2aOverlap),
                  fmt::format("{}: the EP all-to-all overlap (--overlap-moe-expert-parallel-comm) "
                              "needs the alltoall or flex dispatcher",
                              layout_rule_id(LayoutRule::kEpA2aOverlap)),
                  "alltoall or flex", "allgather");
      return std::nullopt;
    }
    request.search_dispatchers = {arguments.layout.dispatcher};
  }
  return request;
}

}  // namespace openrecipes
