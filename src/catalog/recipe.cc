#include "catalog/recipe.h"

#include "base/yaml_fields.h"
#include "catalog/protocol.h"

namespace openrecipes {
namespace {

const YamlNode& mapping_or_empty(const YamlNode& node, std::string_view key) {
  static const YamlNode kEmpty = [] {
    YamlNode empty;
    empty.kind = YamlNode::Kind::kMapping;
    return empty;
  }();
  const YamlNode* child = field_mapping(node, key);
  return child ? *child : kEmpty;
}

Layout layout_from_yaml(const YamlNode& n) {
  Layout l;
  l.label = field_string(n, "label");
  l.summary = field_string(n, "summary");
  l.highlights = field_string(n, "highlights");
  l.tp = field_int32(n, "tp", 1);
  l.pp = field_int32(n, "pp", 1);
  l.vpp = field_int32(n, "vpp", 1);
  l.cp = field_int32(n, "cp", 1);
  l.ep = field_int32(n, "ep", 1);
  l.etp = field_int32(n, "etp", 1);
  l.dp = field_int32(n, "dp", 1);
  l.sequence_parallel = field_bool(n, "sequence_parallel");
  if (const YamlNode* split = field_mapping(n, "layer_split")) {
    l.layer_split = LayerSplit{field_int32(*split, "first"), field_int32(*split, "last")};
  }
  l.pipeline_layout = field_string(n, "pipeline_layout");
  l.account_for_embedding_in_pipeline_split =
      field_bool(n, "account_for_embedding_in_pipeline_split");
  l.account_for_loss_in_pipeline_split = field_bool(n, "account_for_loss_in_pipeline_split");
  l.max_tokens_per_gpu = field_int(n, "max_tokens_per_gpu");
  l.rows_per_microbatch = field_int32(n, "rows_per_microbatch", 1);
  if (const YamlNode* r = field_mapping(n, "recompute")) {
    Recompute recompute{field_string(*r, "granularity"), field_string(*r, "method"), std::nullopt};
    if (r->find("num_layers") && field_optional_number(*r, "num_layers")) {
      recompute.num_layers = field_int32(*r, "num_layers");
    }
    recompute.modules = field_string_list(*r, "modules");
    l.recompute = recompute;
  }
  if (const YamlNode* o = field_mapping(n, "offload")) {
    l.offload = Offload{field_number(*o, "optimizer_fraction"), field_bool(*o, "overlap_d2h_h2d")};
  }
  l.dispatcher = field_string(n, "dispatcher");
  return l;
}

RecipeResult result_from_yaml(const YamlNode& n) {
  RecipeResult r;
  r.tokens_per_s_per_gpu = field_number(n, "tokens_per_s_per_gpu");
  r.usd_per_million_tokens = field_number(n, "usd_per_million_tokens");
  r.step_time_cv_percent = field_number(n, "step_time_cv_percent");
  r.mfu = field_optional_number(n, "mfu");
  r.mfu_note = field_string(n, "mfu_note");
  const YamlNode& params = mapping_or_empty(n, "active_params");
  r.active_params = {field_int(params, "count"), field_string(params, "source"),
                     field_string(params, "revision")};
  r.measured = field_string(n, "measured");
  r.steps_per_run = field_int32(n, "steps_per_run");
  if (const YamlNode* window = n.find("window");
      window && window->kind == YamlNode::Kind::kSequence && window->items.size() == 2) {
    r.window_first = static_cast<int>(resolve_scalar(window->items[0]).get<std::int64_t>());
    r.window_last = static_cast<int>(resolve_scalar(window->items[1]).get<std::int64_t>());
  }
  r.window_tokens = field_int(n, "window_tokens");
  r.runs = field_int32(n, "runs");
  r.profiler = field_bool(n, "profiler");
  r.gpu_hours = field_number(n, "gpu_hours");
  r.gpu_hours_note = field_string(n, "gpu_hours_note");
  r.protocol_deviation = field_string(n, "protocol_deviation");
  r.step_times_s = field_number_list(n, "step_times_s");
  return r;
}

Correctness correctness_from_yaml(const YamlNode& n) {
  Correctness c;
  c.result = field_string(n, "result");
  c.summary = field_string(n, "summary");
  c.reference = field_string(n, "reference");
  c.configuration = field_string(n, "configuration");
  if (const YamlNode* tests = n.find("component_tests")) {
    for (const YamlNode& t : tests->items) {
      c.component_tests.push_back({field_string(t, "test"), field_string(t, "shape"),
                                   field_string(t, "gpu"), field_string(t, "date"),
                                   field_string(t, "result"), field_string(t, "detail")});
    }
  }
  const YamlNode& conv = mapping_or_empty(n, "convergence");
  c.convergence.steps = field_int32(conv, "steps");
  c.convergence.result = field_string(conv, "result");
  c.convergence.correlation = field_optional_number(conv, "correlation");
  c.convergence.final_loss_difference = field_number(conv, "final_loss_difference");
  c.convergence.pointwise_failures = field_int32(conv, "pointwise_failures");
  c.convergence.worst_step_tolerance_ratio =
      field_optional_number(conv, "worst_step_tolerance_ratio");
  c.convergence.note = field_string(conv, "note");
  const YamlNode& losses = mapping_or_empty(conv, "losses");
  c.convergence.candidate_losses = field_number_list(losses, "candidate");
  c.convergence.reference_losses = field_number_list(losses, "reference");
  c.rules = field_string(n, "rules");
  return c;
}

}  // namespace

Recipe recipe_from_yaml(const YamlNode& root) {
  Recipe recipe;
  recipe.schema_version = field_int32(root, "schema_version");
  recipe.model = field_string(root, "model");
  const YamlNode& gpu = mapping_or_empty(root, "gpu");
  recipe.gpu = {field_string(gpu, "type"), field_int32(gpu, "memory_gb"), field_int32(gpu, "count"),
                field_int32(gpu, "per_node"), field_string(gpu, "instance")};
  const YamlNode& author = mapping_or_empty(root, "author");
  recipe.author = {field_string(author, "github"), field_string(author, "name"),
                   field_string(author, "url")};
  recipe.status = field_string(root, "status");
  recipe.stack = field_string_map(root, "stack");

  const YamlNode& workload = mapping_or_empty(root, "workload");
  recipe.workload.row_tokens = field_int(workload, "row_tokens");
  recipe.workload.rows = field_string(workload, "rows");
  recipe.workload.global_batch = field_int(workload, "global_batch");
  recipe.workload.precision = field_string(workload, "precision");
  const YamlNode& dataset = mapping_or_empty(workload, "dataset");
  Dataset& d = recipe.workload.dataset;
  d.name = field_string(dataset, "name");
  d.source = field_string(dataset, "source");
  d.revision = field_string(dataset, "revision");
  d.license = field_string(dataset, "license");
  d.rows_sha256 = field_string(dataset, "rows_sha256");
  const YamlNode& build = mapping_or_empty(dataset, "build");
  d.build = {field_string(build, "name"),
             field_string(build, "tokenizer"),
             field_string(build, "loss_mask"),
             field_int(build, "rows"),
             field_int(build, "row_tokens"),
             field_int(build, "padding_tokens"),
             field_int(build, "seed"),
             field_string(build, "packing"),
             field_optional_number(build, "supervised_token_ratio"),
             field_string(build, "parquet_sha256"),
             field_int(build, "parquet_bytes"),
             field_string(build, "builder")};

  recipe.layout = layout_from_yaml(mapping_or_empty(root, "layout"));
  recipe.result = result_from_yaml(mapping_or_empty(root, "result"));
  // A planned draft's result is null (the schema allows it only then): the run rule checks its
  // command's step count against the protocol's 20 steps.
  if (!field_mapping(root, "result")) recipe.result.steps_per_run = kProtocolSteps;
  recipe.correctness = correctness_from_yaml(mapping_or_empty(root, "correctness"));
  recipe.env = field_string_map(root, "env");
  recipe.patches = field_string_list(root, "patches");
  recipe.run = field_string(root, "run");
  recipe.notes = field_string(root, "notes");
  if (const YamlNode* script = field_mapping(root, "model_script")) {
    recipe.model_script = ModelScript{field_string(*script, "name"), field_string(*script, "array"),
                                      field_string_map(*script, "sets")};
  }
  return recipe;
}

bool Recompute::recomputes_module(std::string_view module) const {
  if (granularity != "selective") return false;
  if (modules.empty()) return module == "core_attn";
  for (const std::string& m : modules)
    if (m == module) return true;
  return false;
}

}  // namespace openrecipes
