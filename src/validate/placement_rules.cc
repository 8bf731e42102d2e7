// The run.placement rule: the command in `run` places the layers on the pipeline stages as the
// layout says, each term through its effective value (run_settings.h: the command's flag, else
// model_script.sets, else Megatron-LM's default, which sets none of them). Flag names are
// Megatron-LM's (megatron/training/arguments.py; slime parses its arguments with Megatron-LM's
// parser, slime/utils/arguments.py), plus Megatron-Bridge's Hydra-style overrides of the
// TransformerConfig fields (megatron/core/transformer/transformer_config.py).
#include <fmt/format.h>

#include "layout/pipeline_layout.h"
#include "validate/run_checks.h"

namespace openrecipes {
namespace {

const std::string kPlacementRule = "run.placement";

// A Python or Hydra null (`None`, `null`) or an empty value: the setting is not set.
bool is_unset(const std::string& value) {
  return value.empty() || value == "None" || value == "null" || value == "~";
}

// `value` without one pair of surrounding quotes (a Hydra override may quote a layout string
// inside the shell word: model.pipeline_model_parallel_layout='Et|tL').
std::string unquoted(const std::string& value) {
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

// The effective value of a setting that is either a value or not set (nullopt when the command
// and the model script state nothing, or state a null).
std::optional<RunSetting> stated(const RunView& run,
                                 std::initializer_list<std::string_view> spellings) {
  std::optional<RunSetting> setting = run.effective(spellings);
  if (setting && is_unset(unquoted(setting->value))) return std::nullopt;
  return setting;
}

// Whether two layout strings place the same layers on the same chunks: Megatron-LM reads
// `Et*3|(tt|)*29,m|L` and `Ettt|tt|...` alike (commas, groups and counts are spelling), so they
// are compared unrolled. A string that does not parse compares as text (mesh.pipeline_layout
// reports it).
bool same_placement(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (a.empty() || b.empty()) return false;
  Problems ignored;
  std::optional<std::vector<PipelineChunk>> x = parse_pipeline_layout(a, "", ignored);
  std::optional<std::vector<PipelineChunk>> y = parse_pipeline_layout(b, "", ignored);
  return x && y && *x == *y;
}

void check_layout_string(const RunView& run, const Layout& l) {
  std::initializer_list<std::string_view> names = {"--pipeline-model-parallel-layout",
                                                   "model.pipeline_model_parallel_layout"};
  std::optional<RunSetting> setting = stated(run, names);
  std::string value = setting ? unquoted(setting->value) : "";
  if (same_placement(value, l.pipeline_layout)) return;
  std::string message = !setting ? "the run command does not set --pipeline-model-parallel-layout"
                        : l.pipeline_layout.empty()
                            ? "the run command sets --pipeline-model-parallel-layout, the layout "
                              "states no pipeline_layout"
                            : "the run command sets --pipeline-model-parallel-layout differently";
  run.report(kPlacementRule, setting, "layout.pipeline_layout", message,
             l.pipeline_layout.empty() ? "no --pipeline-model-parallel-layout"
                                       : "--pipeline-model-parallel-layout " + l.pipeline_layout,
             setting ? value : "no such argument");
}

void check_account_for(const RunView& run, const std::string& field, bool layout_value,
                       std::initializer_list<std::string_view> names) {
  bool on = run.switch_on(names);
  if (on == layout_value) return;
  run.report(kPlacementRule, run.effective(names), field,
             on ? fmt::format("the run command sets {}, the layout does not", *names.begin())
                : fmt::format("the run command does not set {}", *names.begin()),
             layout_value ? std::string(*names.begin()) : "no " + std::string(*names.begin()),
             on ? std::string(*names.begin()) : "not set");
}

void check_stage_layers(const RunView& run, const std::string& field,
                        std::optional<int> layout_value,
                        std::initializer_list<std::string_view> names) {
  std::optional<RunSetting> setting = stated(run, names);
  if (!layout_value) {
    if (setting) {
      run.report(
          kPlacementRule, setting, "layout.layer_split",
          fmt::format("the run command sets {}, the layout's layer_split is null", *names.begin()),
          fmt::format("no {}", *names.begin()), setting->value);
    }
    return;
  }
  if (!setting) {
    run.report(kPlacementRule, setting, field,
               fmt::format("the run command does not set {}", *names.begin()),
               fmt::format("{} {}", *names.begin(), *layout_value), "no such argument");
    return;
  }
  check_stated_integer(run, kPlacementRule, *setting, field, *layout_value, *names.begin());
}

// Megatron-LM's validate_args allows at most one of the layout string and the two VPP flags
// (megatron/training/arguments.py); Megatron-Bridge's TransformerConfig accepts a
// virtual_pipeline_model_parallel_size equal to the layout's (run.layout compares it).
void check_vpp_with_layout_string(const RunView& run) {
  if (run.framework() == RunFramework::kBridge) return;
  std::optional<RunSetting> layout_string =
      stated(run, {"--pipeline-model-parallel-layout", "model.pipeline_model_parallel_layout"});
  if (!layout_string) return;
  for (std::string_view flag :
       {"--num-virtual-stages-per-pipeline-rank", "--num-layers-per-virtual-pipeline-stage"}) {
    std::optional<RunSetting> vpp = stated(run, {flag});
    if (!vpp) continue;
    run.report(kPlacementRule, vpp, "layout.vpp",
               fmt::format("Megatron-LM takes the virtual stages from "
                           "--pipeline-model-parallel-layout and refuses {} beside it",
                           flag),
               fmt::format("no {}", flag), vpp->value);
  }
}

}  // namespace

void check_run_placement(const RunView& run) {
  const Layout& l = run.context().recipe.layout;
  check_layout_string(run, l);
  check_account_for(run, "layout.account_for_embedding_in_pipeline_split",
                    l.account_for_embedding_in_pipeline_split,
                    {"--account-for-embedding-in-pipeline-split",
                     "model.account_for_embedding_in_pipeline_split"});
  check_account_for(
      run, "layout.account_for_loss_in_pipeline_split", l.account_for_loss_in_pipeline_split,
      {"--account-for-loss-in-pipeline-split", "model.account_for_loss_in_pipeline_split"});
  std::optional<int> first =
      l.layer_split ? std::optional<int>(l.layer_split->first) : std::nullopt;
  std::optional<int> last = l.layer_split ? std::optional<int>(l.layer_split->last) : std::nullopt;
  check_stage_layers(
      run, "layout.layer_split.first", first,
      {"--decoder-first-pipeline-num-layers", "model.num_layers_in_first_pipeline_stage"});
  check_stage_layers(
      run, "layout.layer_split.last", last,
      {"--decoder-last-pipeline-num-layers", "model.num_layers_in_last_pipeline_stage"});
  check_vpp_with_layout_string(run);
}

}  // namespace openrecipes
