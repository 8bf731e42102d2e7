#include "plan/published_measurements.h"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "layout/layout_rules.h"
#include "layout/layout_text.h"
#include "layout/pipeline_layout.h"
#include "params/model_shape.h"
#include "plan/catalog_measurements.h"
#include "plan/memory_model.h"
#include "plan/speed_model.h"

namespace openrecipes {
namespace {

// How far a published run's predicted memory may exceed its GPU's and still be taken as the
// memory model's error: the planner's default headroom (MemoryOptions::headroom_fraction), the
// share the model is known to leave out.
constexpr double kMemoryModelTolerance = 0.10;

/// A model's shape, or why it has none.
struct ShapeOrReason {
  std::optional<ModelShape> shape;
  std::string rule;
  std::string reason;
};

ShapeOrReason load_shape(const std::filesystem::path& root, const MeasurementModel* model,
                         const std::string& slug) {
  if (!model) return {std::nullopt, "published.no_config", slug + " is not in the models file"};
  if (!model->config) {
    return {std::nullopt, "published.no_config",
            fmt::format("{} has no config.json: {}", slug, model->config_reason)};
  }
  Problems problems;
  std::optional<ModelShape> shape =
      model_shape_from_file((root / *model->config).string(), slug, problems);
  if (shape) return {std::move(shape), "", ""};
  std::string why = problems.empty() ? "unreadable" : format_problem_line(problems.front());
  return {std::nullopt, "published.model", "the parameter counter rejects its config: " + why};
}

Precision precision_of(const std::string& name) {
  if (name == "bf16") return Precision::kBf16;
  if (name == "mxfp8") return Precision::kMxfp8;
  if (name == "nvfp4") return Precision::kNvfp4;
  return Precision::kFp8;  // fp8 (per-tensor) and fp8_blockwise
}

Layout layout_of(const PublishedMeasurement& row) {
  Layout layout;
  layout.tp = row.tp;
  layout.pp = row.pp;
  layout.cp = row.cp;
  layout.vpp = row.vpp.value_or(1);
  layout.ep = row.ep.value_or(1);
  layout.etp = row.etp.value_or(1);
  int model_parallel = row.tp * row.pp * row.cp;
  layout.dp = model_parallel > 0 ? row.gpus / model_parallel : 0;
  layout.sequence_parallel = row.tp > 1;
  layout.rows_per_microbatch = row.mbs;
  layout.max_tokens_per_gpu = row.mbs * row.seq_length / row.cp;
  if (layout.ep > 1) layout.dispatcher = "alltoall";
  layout.label = fmt::format("TP{} PP{} VPP{} CP{} EP{} DP{} MBS{}", layout.tp, layout.pp,
                             layout.vpp, layout.cp, layout.ep, layout.dp, row.mbs);
  return layout;
}

MeasuredLayout measured_of(const PublishedMeasurement& row, const MeasurementModel* model,
                           const ModelShape& shape, const Gpu& gpu) {
  MeasuredLayout m;
  m.name = fmt::format("{} {} {} x{} {}", row.model_as_written, row.release, row.system, row.gpus,
                       row.precision_as_written.value_or(row.precision));
  m.model = shape;
  m.cluster = cluster_of(gpu, row.gpus);
  m.workload.row_tokens = row.seq_length;
  m.workload.global_batch = row.gbs;
  m.workload.precision = precision_of(row.precision);
  m.workload.forced_balanced_routing = shape.is_moe() && row.routing == "forced_balanced";
  // The tables do not state overlaps. Megatron-Bridge's performance scripts turn on TP
  // communication overlap (userbuffers) whenever TP > 1, except with NVFP4
  // (scripts/performance/configs/llama/llama3_llm_pretrain.py), and its model configs turn on the
  // shared-expert overlap for the models that have a shared expert (DeepSeek-V3, Nemotron-H).
  m.workload.tp_comm_overlap = row.tp > 1 && row.precision != "nvfp4";
  m.workload.shared_expert_overlap = true;
  m.layout = layout_of(row);
  // Megatron-Bridge's performance scripts hold and reduce gradients in BF16
  // (grad_reduce_in_fp32 = False in each model's common configs), where models.yaml says so.
  if (model) m.workload.grad_reduce_in_fp32 = model->grad_reduce_in_fp32;
  // What Megatron-Bridge's performance scripts set for the model's runs, where models.yaml
  // transcribes it (run_settings, with its source): the dispatcher and the two EP overlaps.
  if (const PublishedRunSettings* settings = model ? model->settings_for(row) : nullptr) {
    if (m.layout.ep > 1) m.layout.dispatcher = settings->dispatcher;
    m.workload.hybridep = settings->flex_backend == "hybridep";
    m.workload.shared_expert_overlap = settings->shared_expert_overlap;
    m.workload.ep_a2a_overlap = settings->ep_a2a_overlap && m.layout.ep > 1;
    m.workload.fused_expert_mlp = settings->fused_expert_mlp;
    if (settings->recompute_modules) {
      m.recompute_stated = true;
      if (!settings->recompute_modules->empty())
        m.layout.recompute = Recompute{"selective", "", std::nullopt, *settings->recompute_modules};
    }
  }
  m.tokens_per_s_per_gpu = row.tokens_per_s_per_gpu;
  m.source = published_source(row);
  m.published = true;
  return m;
}

const Gpu* find_gpu(const std::vector<Gpu>& gpus, const std::string& type) {
  for (const Gpu& g : gpus) {
    if (g.type == type) return &g;
  }
  return nullptr;
}

// The table states PP and VPP but not where the layers go: the even split when it is legal,
// else the most balanced placement Megatron-LM accepts (balanced_placement), which is how
// Megatron-Bridge's recipes place 61, 94 or 126 layers.
void place_unstated_layers(MeasuredLayout& m) {
  std::optional<LayoutRule> broken = first_broken_rule(m.model, m.cluster, m.workload, m.layout);
  if (broken != LayoutRule::kPipelineLayers && broken != LayoutRule::kVirtualPipeline) return;
  if (std::optional<PlacementChoice> choice =
          balanced_placement(m.model, m.layout.pp, m.layout.vpp))
    choice->apply_to(m.layout);
}

// The recompute settings a published run may have used when its config does not say: none,
// each of the module sets Megatron-Bridge's performance configs use
// (scripts/performance/configs/*/…_workload_base_configs.py: core_attn by default, moe_act,
// layernorm with moe_act, mla_up_proj, mlp, mla_up_proj with mlp, the whole MoE layer) and full
// recompute one layer per unit.
std::vector<std::optional<Recompute>> unstated_recompute_choices() {
  auto selective = [](std::vector<std::string> modules) {
    return Recompute{"selective", "", std::nullopt, std::move(modules)};
  };
  return {std::nullopt,
          selective({}),
          selective({"moe_act"}),
          selective({"layernorm", "moe_act"}),
          selective({"mla_up_proj"}),
          selective({"mlp"}),
          selective({"mla_up_proj", "mlp"}),
          selective({"moe"}),
          Recompute{"full", "uniform", 1}};
}

// The table does not state recompute: of the legal choices (the EP all-to-all overlap rules out
// full) that the memory model predicts to fit in the whole of the GPU's memory, the one the speed
// model with its default (unfitted) parameters predicts fastest, as the run's authors would have
// tuned it. Without the planner's headroom: the run did fit, so the headroom, kept for what the
// model leaves out, would only push the choice towards more recompute than the run used. When no
// legal choice fits, the one needing the least memory is kept if it misses by no more than that
// headroom (kMemoryModelTolerance): the memory model's own error, not a setting the table leaves
// out. Where models.yaml's run_settings states the run's recompute modules, they are the one
// choice, under the same tolerance. Returns the least memory tried when none is kept (bytes),
// else nullopt.
std::optional<double> choose_unstated_recompute(MeasuredLayout& m) {
  std::vector<std::optional<Recompute>> choices = unstated_recompute_choices();
  if (m.recompute_stated) choices = {m.layout.recompute};
  MemoryOptions whole_gpu;
  whole_gpu.headroom_fraction = 0;
  std::optional<double> least_bytes, best_speed;
  std::optional<Recompute> least_choice, best_choice;
  for (const std::optional<Recompute>& r : choices) {
    Layout l = m.layout;
    l.recompute = r;
    if (first_broken_rule(m.model, m.cluster, m.workload, l)) continue;
    MemoryEstimate memory = estimate_memory(m.model, m.cluster, m.workload, l, whole_gpu);
    if (memory.fits) {
      double speed =
          estimate_speed(m.model, m.cluster, m.workload, l, SpeedParameters{}).tokens_per_s_per_gpu;
      if (!best_speed || speed > *best_speed) best_speed = speed, best_choice = r;
    } else if (!least_bytes || memory.memory_bytes < *least_bytes) {
      least_bytes = memory.memory_bytes, least_choice = r;
    }
  }
  if (best_speed) {
    m.layout.recompute = best_choice;
    return std::nullopt;
  }
  if (!least_bytes) return 0.0;
  double capacity = m.cluster.gpu.memory_gb * 1e9;
  if (*least_bytes <= capacity * (1 + kMemoryModelTolerance)) {
    m.layout.recompute = least_choice;
    return std::nullopt;
  }
  return least_bytes;
}

}  // namespace

std::string published_source(const PublishedMeasurement& row) {
  return fmt::format("{}@{} {} row {}", row.source.file, row.source.commit, row.source.section,
                     row.source.row);
}

PublishedLayouts published_layouts(const std::filesystem::path& root,
                                   const MeasurementDataset& dataset, const std::vector<Gpu>& gpus,
                                   const std::vector<Model>* catalog_models) {
  PublishedLayouts out;
  std::map<std::string, ShapeOrReason> shapes;
  for (std::size_t i = 0; i < dataset.rows.size(); ++i) {
    const PublishedMeasurement& row = dataset.rows[i];
    auto exclude = [&](std::string rule, std::string reason) {
      out.excluded.push_back({i, published_source(row), std::move(rule), std::move(reason)});
    };
    if (row.task == "lora") {
      exclude("published.lora", "LoRA trains adapters only; the speed model times full training");
      continue;
    }
    if (!row.known_issue.empty()) {
      exclude("published.known_issue",
              fmt::format("the release says a known bug ({}) slows this figure", row.known_issue));
      continue;
    }
    if (row.fsdp && *row.fsdp > 0) {
      exclude("published.fsdp", fmt::format("FSDP {}: the speed model has no FSDP", *row.fsdp));
      continue;
    }
    auto it = shapes.find(row.model);
    if (it == shapes.end()) {
      it = shapes.emplace(row.model, load_shape(root, dataset.find_model(row.model), row.model))
               .first;
      if (it->second.shape && catalog_models) {
        for (const Model& model : *catalog_models)
          if (model.slug == row.model) it->second.shape->name = model.name;
      }
    }
    if (!it->second.shape) {
      exclude(it->second.rule, it->second.reason);
      continue;
    }
    const Gpu* gpu = find_gpu(gpus, row.gpu);
    if (!gpu) {
      exclude("published.gpu", row.gpu + " is not in gpus.yaml");
      continue;
    }
    MeasuredLayout m = measured_of(row, dataset.find_model(row.model), *it->second.shape, *gpu);
    place_unstated_layers(m);
    std::vector<LayoutViolation> broken = check_layout(m.model, m.cluster, m.workload, m.layout);
    if (!broken.empty()) {
      exclude(layout_rule_id(broken.front().rule),
              fmt::format("{} (expected {}, found {})", broken.front().message,
                          broken.front().expected, broken.front().found));
      continue;
    }
    if (std::optional<double> bytes = choose_unstated_recompute(m)) {
      exclude("published.memory",
              fmt::format("predicted to need {:.0f} GB per GPU even with the most recompute its "
                          "settings allow ({}), more than {} GB holds: the table may leave out a "
                          "setting the run used (FSDP, offloading)",
                          *bytes / 1e9,
                          m.recompute_stated ? "stated: " + recompute_text(m.layout.recompute)
                                             : std::string("any of none, selective or full"),
                          m.cluster.gpu.memory_gb));
      continue;
    }
    out.layouts.push_back(std::move(m));
  }
  return out;
}

}  // namespace openrecipes
