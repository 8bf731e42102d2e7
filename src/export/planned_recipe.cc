#include "export/planned_recipe.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sstream>

#include "base/yaml_scalar.h"

namespace openrecipes {
namespace {

std::string scalar(const std::string& text) { return yaml_scalar(text); }

std::string block(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) out += line.empty() ? "\n" : "  " + line + "\n";
  return out;
}

std::string dataset_yaml(const Dataset& d) {
  std::string out = "  dataset:\n";
  out += fmt::format(
      "    name: {}\n    source: {}\n    revision: {}\n    license: {}\n    rows_sha256: {}\n",
      scalar(d.name), scalar(d.source), scalar(d.revision), scalar(d.license),
      scalar(d.rows_sha256));
  const DatasetBuild& b = d.build;
  out += "    build:\n";
  out += fmt::format(
      "      name: {}\n      tokenizer: {}\n      loss_mask: {}\n      rows: {}\n      row_tokens: "
      "{}\n",
      scalar(b.name), scalar(b.tokenizer), scalar(b.loss_mask), b.rows, b.row_tokens);
  out += fmt::format("      padding_tokens: {}\n      seed: {}\n", b.padding_tokens, b.seed);
  if (!b.packing.empty()) out += fmt::format("      packing: {}\n", scalar(b.packing));
  if (b.supervised_token_ratio)
    out += fmt::format("      supervised_token_ratio: {}\n", *b.supervised_token_ratio);
  if (!b.parquet_sha256.empty())
    out += fmt::format("      parquet_sha256: {}\n", scalar(b.parquet_sha256));
  if (b.parquet_bytes > 0) out += fmt::format("      parquet_bytes: {}\n", b.parquet_bytes);
  out += fmt::format("      builder: {}\n", scalar(b.builder));
  return out;
}

std::string recompute_words(const Layout& l) {
  if (!l.recompute) return "no recompute";
  std::string out = l.recompute->granularity + " recompute";
  if (!l.recompute->method.empty()) out += " (" + l.recompute->method;
  if (l.recompute->num_layers)
    out += fmt::format(", {} layer(s) per unit", *l.recompute->num_layers);
  if (!l.recompute->method.empty()) out += ")";
  if (!l.recompute->modules.empty())
    out += fmt::format(" of {}", fmt::join(l.recompute->modules, ", "));
  return out;
}

}  // namespace

std::string layout_summary(const ExportSource& source) {
  const Layout& l = source.layout;
  std::string pp = fmt::format("PP {}", l.pp);
  if (l.layer_split)
    pp += fmt::format(" ({} first, {} last)", l.layer_split->first, l.layer_split->last);
  if (!l.pipeline_layout.empty()) pp += fmt::format(" (layout {})", l.pipeline_layout);
  if (l.account_for_embedding_in_pipeline_split) pp += " (embedding counted as a layer)";
  if (l.account_for_loss_in_pipeline_split) pp += " (loss counted as a layer)";
  std::string out = fmt::format("TP {}, {}, ", l.tp, pp);
  if (l.vpp > 1) out += fmt::format("VPP {}, ", l.vpp);
  out += fmt::format(
      "CP {}, EP {}, ETP {}, DP {}; {} row(s) of {} tokens per microbatch (max {} tokens per GPU); "
      "{}",
      l.cp, l.ep, l.etp, l.dp, l.rows_per_microbatch, source.workload.row_tokens,
      l.max_tokens_per_gpu, recompute_words(l));
  if (!l.dispatcher.empty()) out += "; " + l.dispatcher + " dispatcher";
  out += "; distributed optimizer";
  out += l.offload ? fmt::format("; {} of the optimizer offloaded", l.offload->optimizer_fraction)
                   : "; no offload";
  return out;
}

namespace {

// The draft's comment, and its model, gpu, author, status, stack and workload fields.
std::string draft_head_yaml(const ExportSource& source) {
  const Gpu& gpu = source.cluster.gpu;
  std::string out;
  out +=
      "# A planned recipe draft from openrecipes export: predicted by openrecipes plan, not "
      "measured.\n";
  out +=
      "# Run it under the protocol, fill in stack, result and correctness, and set status before "
      "submitting;\n";
  out += "# planned drafts are not listed. Fields: schema/recipe.schema.yaml.\n";
  out += "schema_version: 1\n";
  out += fmt::format("model: {}\n", scalar(source.model_name));
  out += fmt::format(
      "gpu:\n  type: {}\n  memory_gb: {}\n  count: {}\n  per_node: {}\n  instance: {}\n",
      scalar(gpu.type), gpu.memory_gb, source.cluster.gpus, source.cluster.per_node,
      scalar(gpu.instance.empty() ? "not stated" : gpu.instance));
  out += fmt::format("author:\n  github: {}\n", kPlaceholderHandle);
  out += "status: planned\n";
  out += "stack:\n";
  for (const char* part :
       {"framework", "megatron_lm", "transformer_engine", "pytorch", "cuda", "nccl"}) {
    out += fmt::format("  {}: not pinned\n", part);
  }
  out += fmt::format(
      "workload:\n  row_tokens: {}\n  rows: SFT conversations\n  global_batch: {}\n  precision: "
      "{}\n",
      source.workload.row_tokens, source.workload.global_batch,
      precision_name(source.workload.precision));
  out += source.dataset ? dataset_yaml(*source.dataset) : "  dataset: null\n";
  return out;
}

// The draft's `layout` block.
std::string draft_layout_yaml(const ExportSource& source) {
  const Layout& l = source.layout;
  std::string out;
  out += "layout:\n";
  out += fmt::format("  label: {}\n  summary: {}\n  highlights: {}\n", scalar(l.label),
                     scalar(layout_summary(source)), scalar(kPlannedHighlights));
  out += fmt::format("  tp: {}\n  pp: {}\n  vpp: {}\n  cp: {}\n  ep: {}\n  etp: {}\n  dp: {}\n",
                     l.tp, l.pp, l.vpp, l.cp, l.ep, l.etp, l.dp);
  out +=
      fmt::format("  sequence_parallel: {}\n", l.sequence_parallel && l.tp > 1 ? "true" : "false");
  out += l.layer_split ? fmt::format("  layer_split:\n    first: {}\n    last: {}\n",
                                     l.layer_split->first, l.layer_split->last)
                       : "  layer_split: null\n";
  if (!l.pipeline_layout.empty())
    out += fmt::format("  pipeline_layout: {}\n", scalar(l.pipeline_layout));
  if (l.account_for_embedding_in_pipeline_split)
    out += "  account_for_embedding_in_pipeline_split: true\n";
  if (l.account_for_loss_in_pipeline_split) out += "  account_for_loss_in_pipeline_split: true\n";
  out += fmt::format("  max_tokens_per_gpu: {}\n  rows_per_microbatch: {}\n", l.max_tokens_per_gpu,
                     l.rows_per_microbatch);
  if (l.recompute) {
    out +=
        fmt::format("  recompute:\n    granularity: {}\n    method: {}\n    num_layers: {}\n",
                    scalar(l.recompute->granularity),
                    l.recompute->method.empty() ? "null" : scalar(l.recompute->method),
                    l.recompute->num_layers ? fmt::format("{}", *l.recompute->num_layers) : "null");
    if (!l.recompute->modules.empty())
      out += fmt::format("    modules: [{}]\n", fmt::join(l.recompute->modules, ", "));
  } else {
    out += "  recompute: null\n";
  }
  out += l.offload
             ? fmt::format("  offload:\n    optimizer_fraction: {}\n    overlap_d2h_h2d: {}\n",
                           l.offload->optimizer_fraction,
                           l.offload->overlap_d2h_h2d ? "true" : "false")
             : "  offload: null\n";
  out += fmt::format("  dispatcher: {}\n", l.dispatcher.empty() ? "null" : scalar(l.dispatcher));
  return out;
}

// The draft's `prediction` block: the planner's figures, marked as not measured.
std::string draft_prediction_yaml(const LayoutPrediction& prediction) {
  std::string out;
  out += "prediction:\n";
  out += fmt::format("  tokens_per_s_per_gpu: {:.2f}\n", prediction.speed.tokens_per_s_per_gpu);
  out += fmt::format("  memory_bytes: {:.0f}\n", prediction.memory.memory_bytes);
  out += fmt::format("  memory_gb: {:.1f}\n", prediction.memory.memory_bytes / 1e9);
  out += fmt::format("  fits: {}\n", prediction.memory.fits ? "true" : "false");
  out += fmt::format("  mfu: {:.4f}\n", prediction.speed.mfu);
  out += fmt::format("  usd_per_million_tokens: {:.2f}\n", prediction.speed.usd_per_million_tokens);
  out += fmt::format("  step_time_s: {:.3f}\n", prediction.speed.step_time_s);
  out += "  source: openrecipes plan (calibrated speed model; not measured)\n";
  return out;
}

// The draft's null result and correctness, env, patches, run and notes.
std::string draft_tail_yaml(const ExportSource& source, const std::string& run) {
  std::string out;
  out += "result: null\n";
  out += "correctness: null\n";
  if (source.env.empty()) {
    out += "env: {}\n";
  } else {
    out += "env:\n";
    for (const auto& [name, value] : source.env)
      out += fmt::format("  {}: {}\n", name, scalar(value));
  }
  if (source.patches.empty()) {
    out += "patches: []\n";
  } else {
    out += "patches:\n";
    for (const std::string& patch : source.patches) out += fmt::format("- {}\n", scalar(patch));
  }
  out += "run: |\n" + block(run);
  out += "notes: |\n";
  out += block(fmt::format("{} Settings: {}.", kPlannedNotesLead, source.settings_source));
  return out;
}

}  // namespace

std::string planned_recipe_yaml(const ExportSource& source, const LayoutPrediction& prediction,
                                const std::string& run) {
  return draft_head_yaml(source) + draft_layout_yaml(source) + draft_prediction_yaml(prediction) +
         draft_tail_yaml(source, run);
}

}  // namespace openrecipes
