#include "plan/catalog_measurements.h"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "base/parallel_for.h"
#include "plan/plan_report.h"
#include "plan/run_setting_flags.h"
#include "runs/training_command.h"
#include "text/sha256.h"

namespace openrecipes {

ClusterShape cluster_of(const Gpu& gpu, int gpus, int per_node) {
  ClusterShape cluster;
  cluster.gpu = gpu;
  cluster.gpus = gpus;
  cluster.per_node = per_node > 0 ? per_node : gpu.per_node;
  return cluster;
}

namespace {

// The measurement of one recipe, or nullopt when it is not verified or names a model or GPU type
// the catalog lacks.
std::optional<MeasuredLayout> measured_layout(const Catalog& catalog, const CatalogRecipe& entry) {
  const Recipe& r = entry.recipe;
  const Model* model = catalog.find_model(r.model);
  const Gpu* gpu = catalog.find_gpu(r.gpu.type);
  if (r.status != "verified" || !model || !gpu) return std::nullopt;
  MeasuredLayout m = recipe_planner_inputs(r, *model, *gpu);
  m.name = entry.catalog_path;
  m.tokens_per_s_per_gpu = r.result.tokens_per_s_per_gpu;
  return m;
}

// Recipes per thread below which measured_slots stays on one: starting a thread costs about as
// much as reading a few dozen runs.
constexpr std::size_t kRecipesPerThread = 64;

// Every recipe's measured_layout, in the recipes' order. Reading each run as shell is most of
// the cost (a 10,000-recipe catalog), so the recipes are read on every core, each into its slot.
std::vector<std::optional<MeasuredLayout>> measured_slots(
    const Catalog& catalog, const std::vector<CatalogRecipe>& recipes) {
  std::vector<std::optional<MeasuredLayout>> slots(recipes.size());
  parallel_for(
      recipes.size(), [&](std::size_t i) { slots[i] = measured_layout(catalog, recipes[i]); },
      kRecipesPerThread);
  return slots;
}

}  // namespace

MeasuredLayout recipe_planner_inputs(const Recipe& r, const Model& model, const Gpu& gpu) {
  MeasuredLayout m;
  m.model = model.shape;
  m.cluster = cluster_of(gpu, r.gpu.count, r.gpu.per_node);
  m.workload.row_tokens = r.workload.row_tokens;
  m.workload.global_batch = r.workload.global_batch;
  m.workload.precision = precision_from_name(r.workload.precision).value_or(Precision::kBf16);
  m.layout = r.layout;
  // Overlaps the layout fields do not state, as the run's command switches them on.
  apply_recipe_run_settings(r.run, m.workload);
  if (m.layout.ep > 1 && m.layout.dispatcher.empty()) m.layout.dispatcher = "alltoall";
  return m;
}

void apply_recipe_run_settings(const std::string& run, PlanWorkload& workload) {
  TrainingCommand command = read_training_command(run, no_argument_rules());
  auto on = [&](std::string_view spelling) {
    const TrainingArgument* a = command.find_spelling({spelling});
    return a && switch_value_on(a->value);
  };
  for (const RunSwitch& s : run_switches()) s.set(workload, on(s.flag));
  const TrainingArgument* backend = command.find_spelling({"--moe-flex-dispatcher-backend"});
  workload.hybridep = backend && backend->value == "hybridep";
}

std::vector<MeasuredLayout> measured_layouts(const Catalog& catalog,
                                             const std::vector<CatalogRecipe>& recipes) {
  std::vector<MeasuredLayout> measured;
  for (std::optional<MeasuredLayout>& m : measured_slots(catalog, recipes))
    if (m) measured.push_back(std::move(*m));
  return measured;
}

namespace {

// Every field of `layout` the planner reads, as JSON: layout_to_json's, and the optimizer offload
// it leaves out (the memory model reads it).
nlohmann::json layout_fields(const Layout& layout) {
  nlohmann::json fields = layout_to_json(layout);
  if (layout.offload) {
    fields["offload"] = {{"optimizer_fraction", layout.offload->optimizer_fraction},
                         {"overlap_d2h_h2d", layout.offload->overlap_d2h_h2d}};
  }
  return fields;
}

// layout_fields as text; a label that is not UTF-8 is written with U+FFFD (it is not read).
std::string layout_fields_text(const Layout& layout) {
  return layout_fields(layout).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string model_config_digest(const Catalog& catalog, const Model& model) {
  try {
    return sha256_file((catalog.root / "models" / model.slug / "config.json").string()).first;
  } catch (const std::exception&) {
    return "name:" + model.name;  // the loader read it moments ago; keep the model distinct
  }
}

std::vector<MeasuredLayout> distinct_measured_layouts(const Catalog& catalog,
                                                      const std::vector<CatalogRecipe>& recipes,
                                                      const std::string& keep_model) {
  std::vector<std::optional<MeasuredLayout>> all = measured_slots(catalog, recipes);
  std::map<std::string, std::string> digest_of;  // the models' names -> config digest
  for (const std::optional<MeasuredLayout>& m : all) {
    if (!m) continue;
    auto [digest, inserted] = digest_of.try_emplace(m->model.name);
    if (inserted) {
      const Model* model = catalog.find_model(m->model.name);
      digest->second = model ? model_config_digest(catalog, *model) : "name:" + m->model.name;
    }
  }
  // What makes two measurements the same, on every core as measured_slots (the layout's JSON).
  std::vector<std::string> keys(all.size());
  parallel_for(
      all.size(),
      [&](std::size_t i) {
        if (!all[i]) return;
        const MeasuredLayout& m = *all[i];
        const PlanWorkload& w = m.workload;
        keys[i] = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}{}{}{}{}|{}|{}", digest_of.at(m.model.name),
                              m.cluster.gpu.type, m.cluster.gpus, m.cluster.per_node, w.row_tokens,
                              w.global_batch, precision_name(w.precision), w.tp_comm_overlap,
                              w.shared_expert_overlap, w.ep_a2a_overlap, w.hybridep,
                              w.grad_reduce_in_fp32, layout_fields_text(m.layout),
                              m.tokens_per_s_per_gpu);
      },
      kRecipesPerThread);
  std::map<std::string, std::size_t> kept;  // key -> index in `all` of the copy kept
  std::vector<std::string> order;           // keys by first appearance
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i]) continue;
    auto [at, first] = kept.try_emplace(keys[i], i);
    if (first) {
      order.push_back(keys[i]);
    } else if (!keep_model.empty() && all[i]->model.name == keep_model &&
               all[at->second]->model.name != keep_model) {
      at->second = i;
    }
  }
  std::vector<MeasuredLayout> out;
  for (const std::string& key : order) out.push_back(std::move(*all[kept[key]]));
  return out;
}

std::string measurement_evidence(const std::vector<CatalogRecipe>& recipes) {
  std::string out;
  // Strings with their length first, so that no two recipes' fields run together the same way.
  auto field = [&out](const std::string& text) {
    fmt::format_to(std::back_inserter(out), "{}:{}|", text.size(), text);
  };
  for (const CatalogRecipe& entry : recipes) {
    const Recipe& r = entry.recipe;
    field(entry.catalog_path);
    field(r.status);
    field(r.model);
    field(r.gpu.type);
    field(r.workload.precision);
    field(layout_fields_text(r.layout));
    field(r.run);
    // fmt writes a double as the shortest text that reads back as the same double.
    fmt::format_to(std::back_inserter(out), "{}|{}|{}|{}|{}\n", r.gpu.count, r.gpu.per_node,
                   r.workload.row_tokens, r.workload.global_batch, r.result.tokens_per_s_per_gpu);
  }
  return out;
}

}  // namespace openrecipes
