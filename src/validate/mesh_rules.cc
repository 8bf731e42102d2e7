// Rules on the device mesh: sizes multiply to the GPU count, experts and layers divide evenly,
// a microbatch fits, and the label says what the sizes are. Megatron-Core's constraints.
#include <fmt/format.h>

#include "figures/figures.h"
#include "figures/layout_label.h"
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
  if (!dp) {
    c.report("mesh.world", "layout", "tp x pp x cp does not divide the GPU count",
             fmt::format("a divisor of gpu.count {}", gpu.count),
             fmt::format("{} x {} x {} = {}", l.tp, l.pp, l.cp,
                         static_cast<long long>(l.tp) * l.pp * l.cp));
  } else if (*dp != l.dp) {
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

void check_experts(const RuleContext& c, const Model& model) {
  const Layout& l = c.recipe.layout;
  int experts = model.architecture.experts;
  if (experts == 0 && (l.ep > 1 || l.etp > 1)) {
    c.report("mesh.ep", "layout.ep", fmt::format("{} is dense: EP and ETP must be 1", model.name),
             "1", fmt::format("ep {}, etp {}", l.ep, l.etp));
  } else if (experts > 0 && experts % l.ep != 0) {
    c.report("mesh.ep", "layout.ep",
             fmt::format("EP must divide {}'s {} experts", model.name, experts),
             fmt::format("a divisor of {}", experts), fmt::format("{}", l.ep));
  }
  long long dense_ranks = static_cast<long long>(l.tp) * l.cp * l.dp;
  long long expert_ranks = static_cast<long long>(l.ep) * l.etp;
  if (dense_ranks % expert_ranks != 0) {
    c.report("mesh.ep", "layout.ep",
             "tp x cp x dp must be divisible by ep x etp (the expert mesh folds into the same ranks)",
             fmt::format("ep x etp dividing {}", dense_ranks),
             fmt::format("{} x {} = {}", l.ep, l.etp, expert_ranks));
  }
}

void check_layers(const RuleContext& c, const Model& model) {
  const Layout& l = c.recipe.layout;
  int layers = model.architecture.layers;
  if (!l.layer_split) {
    if (layers % l.pp != 0) {
      c.report("mesh.pp", "layout.pp",
               fmt::format("PP must divide {}'s {} layers, or layer_split must place them", model.name,
                           layers),
               fmt::format("a divisor of {} or a layer_split", layers), fmt::format("{}", l.pp));
    } else if (l.vpp > 1 && (layers / l.pp) % l.vpp != 0) {
      c.report("mesh.pp", "layout.vpp", "VPP must divide the layers per pipeline stage",
               fmt::format("a divisor of {}", layers / l.pp), fmt::format("{}", l.vpp));
    }
    return;
  }
  const LayerSplit& split = *l.layer_split;
  if (l.pp < 2) {
    c.report("mesh.pp", "layout.layer_split", "a layer_split needs PP of at least 2", "null",
             fmt::format("{{first: {}, last: {}}}", split.first, split.last));
    return;
  }
  int middle_layers = layers - split.first - split.last;
  int middle_stages = l.pp - 2;
  bool ok = middle_stages == 0 ? middle_layers == 0
                               : middle_layers > 0 && middle_layers % middle_stages == 0;
  if (!ok) {
    c.report("mesh.pp", "layout.layer_split",
             fmt::format("layer_split does not account for all {} layers over {} stages", layers, l.pp),
             middle_stages == 0
                 ? fmt::format("first + last = {}", layers)
                 : fmt::format("{} - first - last divisible by the {} middle stages", layers,
                               middle_stages),
             fmt::format("first {}, last {}", split.first, split.last));
  }
}

void check_microbatch(const RuleContext& c) {
  const Layout& l = c.recipe.layout;
  const Workload& w = c.recipe.workload;
  if (l.max_tokens_per_gpu * l.cp < w.row_tokens) {
    c.report("mesh.max_tokens", "layout.max_tokens_per_gpu",
             "a row split over CP must fit in max_tokens_per_gpu",
             fmt::format("at least {} (row_tokens {} / cp {})", (w.row_tokens + l.cp - 1) / l.cp,
                         w.row_tokens, l.cp),
             fmt::format("{}", l.max_tokens_per_gpu));
  }
  long long rows_per_step = static_cast<long long>(l.dp) * l.rows_per_microbatch;
  if (rows_per_step > 0 && w.global_batch % rows_per_step != 0) {
    c.report("mesh.batch", "layout.rows_per_microbatch",
             "the global batch must split evenly over DP ranks and microbatches",
             fmt::format("dp x rows_per_microbatch dividing {}", w.global_batch),
             fmt::format("{} x {} = {}", l.dp, l.rows_per_microbatch, rows_per_step));
  }
}

}  // namespace

void check_mesh_rules(const RuleContext& context) {
  check_sizes(context);
  if (const Model* model = context.catalog.find_model(context.recipe.model)) {
    check_experts(context, *model);
    check_layers(context, *model);
  }
  check_microbatch(context);
}

}  // namespace openrecipes
