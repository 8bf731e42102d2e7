// What a run leaves to an array it expands but does not define (slime's `${MODEL_ARGS[@]}`) is
// stated in the recipe's model_script, and the model sizes the command or the script states
// agree with the model's architecture (models.yaml, read as a ModelShape).
#include <fmt/format.h>

#include "validate/run_checks.h"

namespace openrecipes {
namespace {

// The 1-based line of the command text that first expands `array` (`${NAME[@]}`, `$NAME`), or 0.
int expansion_line(const std::string& run, const std::string& array) {
  int line = 1;
  std::size_t start = 0;
  while (start <= run.size()) {
    std::size_t end = run.find('\n', start);
    if (end == std::string::npos) end = run.size();
    std::string_view text(run.data() + start, end - start);
    if (text.find("${" + array) != std::string_view::npos ||
        text.find("$" + array) != std::string_view::npos) {
      return line;
    }
    start = end + 1;
    ++line;
  }
  return 0;
}

struct SizeTerm {
  std::string_view flag;      ///< Megatron-LM's (and slime's) spelling
  std::string_view override;  ///< Megatron-Bridge's
  int ModelShape::*size;
  std::string_view what;
};

// Megatron-LM's flags for the sizes (megatron/training/arguments.py) and the Bridge provider's
// fields of the same names (megatron/bridge/models/gpt_provider.py, TransformerConfig).
const SizeTerm kSizes[] = {
    {"--num-layers", "model.num_layers", &ModelShape::layers, "decoder layers"},
    {"--hidden-size", "model.hidden_size", &ModelShape::hidden_size, "hidden size"},
    {"--num-attention-heads", "model.num_attention_heads", &ModelShape::attention_heads,
     "attention heads"},
    {"--num-query-groups", "model.num_query_groups", &ModelShape::kv_heads, "KV heads"},
    {"--num-experts", "model.num_moe_experts", &ModelShape::experts, "routed experts"},
    {"--moe-router-topk", "model.moe_router_topk", &ModelShape::experts_per_token,
     "experts per token"},
    {"--moe-ffn-hidden-size", "model.moe_ffn_hidden_size", &ModelShape::expert_ffn_hidden_size,
     "expert FFN hidden size"},
};

}  // namespace

void check_model_script(const RunView& run) {
  const RuleContext& c = run.context();
  const std::optional<ModelScript>& script = c.recipe.model_script;
  const std::string rule = "run.model_script";
  for (const std::string& array : run.command().external_arrays) {
    if (script && script->array == array) continue;
    c.report_at(run.position_of_line(expansion_line(c.recipe.run, array)), rule, "model_script",
                fmt::format("the run expands ${{{}[@]}} without defining it: state what it sets in "
                            "model_script (name, array, sets)",
                            array),
                fmt::format("model_script.array: {}", array),
                script ? fmt::format("model_script.array: {}", script->array) : "no model_script");
  }
  if (script && script->sets.empty()) {
    c.report(rule, "model_script.sets", "model_script states none of the settings it leaves",
             "the flags the script sets (--num-layers: 48, ...)", "{}");
  }
  if (script && !run.expansion_word(script->array)) {
    c.report(rule, "model_script.array",
             "model_script names an array the run does not expand (or defines itself)",
             fmt::format("an array the run expands without defining it ({})",
                         run.command().external_arrays.empty()
                             ? std::string("none")
                             : fmt::format("{}", fmt::join(run.command().external_arrays, ", "))),
             script->array);
  }
}

void check_model_sizes(const RunView& run) {
  const RuleContext& c = run.context();
  const Model* model = c.catalog.find_model(c.recipe.model);
  if (!model || model->shape.layers == 0) return;  // the shape was not loaded: catalog.model says
  for (const SizeTerm& term : kSizes) {
    std::optional<RunSetting> setting = run.effective({term.flag, term.override});
    if (!setting) continue;
    long long expected = model->shape.*term.size;
    std::optional<long long> value = setting_integer(setting->value);
    if (!value || *value != expected) {
      run.report("run.model_shape", setting, "model",
                 fmt::format("{} must be {}'s {} (models.yaml)", term.flag, model->name, term.what),
                 fmt::format("{}", expected), setting->value);
    }
  }
}

}  // namespace openrecipes
