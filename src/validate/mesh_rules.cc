// Rules on the device mesh: the stated DP and label agree with the sizes, and the layout obeys the
// planner's legality rules (one set of rules for validate, plan, recommend and export).
#include <fmt/format.h>

#include "figures/figures.h"
#include "figures/layout_label.h"
#include "layout/layout_rules.h"
#include "validate/recipe_rules.h"

namespace openrecipes {
namespace {

void check_sizes(const RuleContext& c) {
  const RecipeGpu& gpu = c.recipe.gpu;
  const Layout& l = c.recipe.layout;
  if (gpu.per_node > 0 && gpu.count % gpu.per_node != 0) {
    c.report("gpu.per_node", "gpu.per_node", "GPUs per node does not divide the GPU count",
             fmt::format("a divisor of {}", gpu.count), fmt::format("{}", gpu.per_node));
  }
  std::optional<int> dp = data_parallel_size(gpu.count, l.tp, l.pp, l.cp);
  if (dp && *dp != l.dp) {  // a DP that does not divide is mesh.world (check_layout_rules)
    c.report("layout.dp", "layout.dp", "dp must be gpu.count / (tp x pp x cp)",
             fmt::format("{} ({} / ({} x {} x {}))", *dp, gpu.count, l.tp, l.pp, l.cp),
             fmt::format("{}", l.dp));
  }
  std::string label = layout_label(l);
  if (l.label != label) {
    c.report("layout.label", "layout.label", "the label disagrees with the layout's sizes", label,
             l.label);
  }
}

// The layout rules the planner uses (src/plan/layout_rules.h), reported at the recipe's fields.
void check_layout_rules(const RuleContext& c, const Model& model) {
  ClusterShape cluster;
  if (const Gpu* gpu = c.catalog.find_gpu(c.recipe.gpu.type)) cluster.gpu = *gpu;
  cluster.gpus = c.recipe.gpu.count;
  cluster.per_node = c.recipe.gpu.per_node;
  PlanWorkload workload;
  workload.row_tokens = c.recipe.workload.row_tokens;
  workload.global_batch = c.recipe.workload.global_batch;
  for (const LayoutViolation& v : check_layout(model.shape, cluster, workload, c.recipe.layout)) {
    c.report(layout_rule_id(v.rule), v.field, v.message, v.expected, v.found);
  }
}

}  // namespace

void check_mesh_rules(const RuleContext& context) {
  check_sizes(context);
  if (const Model* model = context.catalog.find_model(context.recipe.model)) {
    check_layout_rules(context, *model);
  }
}

}  // namespace openrecipes
