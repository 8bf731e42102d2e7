#include "plan/recommend_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/number_format.h"
#include "layout/layout_text.h"
#include "layout/pipeline_layout.h"
#include "plan/catalog_measurements.h"
#include "plan/plan_report.h"
#include "runs/run_framework.h"

namespace openrecipes {
namespace {

std::string layer_split_text(const Layout& layout) {
  return has_placement(layout) ? " " + placement_text(layout) : "";
}

std::string overrides_text(const Recommendation& rec) {
  if (rec.overrides.empty()) return "overrides: none; run the recipe as it is\n";
  std::vector<std::vector<std::string>> rows = {{"override", "from", "to", "class"}};
  for (const SettingOverride& o : rec.overrides)
    rows.push_back({o.setting, o.from, o.to, o.argument_class});
  return "overrides (classes from rules/arguments.yaml):\n" +
         aligned_table(rows, {false, true, true, false});
}

// export's --to for the framework the starting recipe's run starts (detect_framework),
// Megatron-LM when the command does not tell.
std::string starting_framework(const Recipe& base) {
  switch (detect_framework(read_training_command(base.run, no_argument_rules()))) {
    case RunFramework::kSlime:
      return "slime";
    case RunFramework::kBridge:
      return "megatron-bridge";
    case RunFramework::kMegatronLm:
    case RunFramework::kUnknown:
      break;
  }
  return "megatron-lm";
}

// A command the user can paste as it is (one framework), then how to get the other two.
std::string export_command_text(const RecommendRequest& request, const Layout& layout,
                                const std::string& model_text, const Recipe& base) {
  std::string to = starting_framework(base);
  std::string others;
  for (const char* framework : {"slime", "megatron-lm", "megatron-bridge"}) {
    if (framework == to) continue;
    others += fmt::format("{}--to {}", others.empty() ? "" : " or ", framework);
  }
  // The prediction assumed the starting recipe's run settings (recommend_recipe): the command
  // asks for them too, whatever recipe export takes its other settings from.
  PlanWorkload workload = request.workload;
  apply_recipe_run_settings(base.run, workload);
  return fmt::format("\nnext: openrecipes export {} --to {}\n      ({} for the other frameworks)\n",
                     layout_flags_text(model_text, request.cluster, workload, layout), to, others);
}

}  // namespace

RecommendRequest recommend_request(const PlanRequest& request, const std::string& goal) {
  RecommendRequest out;
  out.model_name = request.model.name;
  out.family = request.model.family;
  out.model = request.model.shape;
  out.cluster = request.cluster;
  out.workload.row_tokens = request.workload.row_tokens;
  out.goal = goal == "pretrain" ? TrainingGoal::kPretrain
             : goal == "peft"   ? TrainingGoal::kPeft
                                : TrainingGoal::kSft;
  return out;
}

std::optional<Recommendation> recommend_from_catalog(
    const RecommendRequest& request, const Catalog& catalog,
    const std::vector<CatalogRecipe>& recipes, const ArgumentRules& rules,
    const SpeedCalibration& calibration, const std::vector<MeasuredLayout>& measured,
    const MemoryOptions& memory, Problems& problems) {
  std::vector<RecipeCandidate> candidates;
  for (const CatalogRecipe& recipe : recipes) {
    const Model* m = catalog.find_model(recipe.recipe.model);
    if (m) candidates.push_back({&recipe, m->family, m->shape});
  }
  std::optional<Recommendation> rec = recommend_recipe(
      request, candidates, rules, calibration.parameters, memory, problems, calibration.mape);
  if (rec) {
    rec->band = prediction_band(calibration, measured, request.model, request.cluster,
                                request.workload, rec->prediction.layout);
  }
  return rec;
}

nlohmann::json recommendation_to_json(const RecommendRequest& request, const Recommendation& rec) {
  nlohmann::json overrides = nlohmann::json::array();
  for (const SettingOverride& o : rec.overrides) {
    overrides.push_back({{"setting", o.setting},
                         {"from", o.from},
                         {"to", o.to},
                         {"class", o.argument_class},
                         {"reason", o.reason}});
  }
  nlohmann::json checks = nlohmann::json::array();
  for (const ResizeCheck& c : rec.checks) {
    checks.push_back(
        {{"rule", c.rule}, {"text", c.text}, {"passed", c.passed}, {"detail", c.detail}});
  }
  return {{"model", request.model_name},
          {"gpu", request.cluster.gpu.type},
          {"gpus", request.cluster.gpus},
          {"goal", goal_name(request.goal)},
          {"seq_length", request.workload.row_tokens},
          {"recipe", rec.base->catalog_path},
          {"match", rec.match_text},
          {"measured_tokens_per_s_per_gpu", rec.base->recipe.result.tokens_per_s_per_gpu},
          {"resized_by_search", rec.resized_by_search},
          {"layout_reason", rec.layout_reason},
          {"prediction", prediction_to_json(rec.prediction, false)},
          {"band",
           {{"relative_error", rec.band.relative_error},
            {"rows", rec.band.rows},
            {"nearest", rec.band.nearest},
            {"unlike_measured", rec.band.unlike_measured}}},
          {"overrides", overrides},
          {"checks", checks},
          {"advice", rec.advice}};
}

std::string recommendation_text(const RecommendRequest& request, const Recommendation& rec,
                                const std::string& model_text) {
  const Recipe& base = rec.base->recipe;
  const LayoutPrediction& p = rec.prediction;
  std::string out = fmt::format("{} on {} x {} ({}), rows of {} token{}\n\n", request.model_name,
                                request.cluster.gpus, request.cluster.gpu.type,
                                goal_name(request.goal), format_count(request.workload.row_tokens),
                                request.workload.row_tokens == 1 ? "" : "s");
  out += fmt::format("start from: {} ({})\n", rec.base->catalog_path, rec.match_text);
  out += fmt::format("  measured: {} tokens/s per GPU on {} x {}, {} {}\n",
                     format_thousands(base.result.tokens_per_s_per_gpu, 2), base.gpu.count,
                     base.gpu.type, base.layout.label, recompute_text(base.layout.recompute));
  out += fmt::format("recommended layout: {} MBS{}{} recompute {}{}{}\n", p.layout.label,
                     p.layout.rows_per_microbatch, layer_split_text(p.layout),
                     recompute_text(p.layout.recompute),
                     p.layout.dispatcher.empty() ? "" : " dispatcher " + p.layout.dispatcher,
                     rec.resized_by_search ? " (the planner's best)" : "");
  out += fmt::format(
      "  predicted: {} tokens/s per GPU ±{:.0f}%{}, MFU {}, {} per 1M tokens; memory {:.1f} GB of "
      "{:.1f} GB usable ({})\n",
      format_thousands(p.speed.tokens_per_s_per_gpu, 0), 100 * rec.band.relative_error,
      rec.band.unlike_measured ? " (unlike anything measured)" : "",
      format_fraction_percent(p.speed.mfu, 1), predicted_usd_text(p.speed.usd_per_million_tokens),
      p.memory.memory_bytes / 1e9, p.memory.usable_bytes / 1e9,
      p.memory.fits ? "fits" : "does not fit");
  if (!rec.layout_reason.empty())
    out += fmt::format("  not the recipe's layout: {}\n", rec.layout_reason);
  out += "\n" + overrides_text(rec);
  out += "\nresizing rules:\n";
  std::size_t rule_width = 0;
  for (const ResizeCheck& c : rec.checks) rule_width = std::max(rule_width, c.rule.size());
  for (const ResizeCheck& c : rec.checks) {
    out += fmt::format("  {} {:<{}} {}{}\n", c.passed ? "ok  " : "FAIL", c.rule, rule_width, c.text,
                       c.detail.empty() ? "" : ": " + c.detail);
  }
  out += "\nadvice:\n";
  for (const std::string& a : rec.advice) out += fmt::format("  - {}\n", a);
  return out + export_command_text(request, p.layout, model_text, base);
}

}  // namespace openrecipes
