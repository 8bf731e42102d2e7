#include "plan/plan_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/number_format.h"
#include "catalog/protocol.h"
#include "layout/layout_text.h"
#include "plan/run_setting_flags.h"

namespace openrecipes {
namespace {

double gb(double bytes) { return bytes / 1e9; }

}  // namespace

nlohmann::json layout_to_json(const Layout& l) {
  nlohmann::json j = {{"label", l.label},
                      {"tp", l.tp},
                      {"pp", l.pp},
                      {"vpp", l.vpp},
                      {"cp", l.cp},
                      {"ep", l.ep},
                      {"etp", l.etp},
                      {"dp", l.dp},
                      {"sequence_parallel", l.sequence_parallel},
                      {"rows_per_microbatch", l.rows_per_microbatch},
                      {"max_tokens_per_gpu", l.max_tokens_per_gpu},
                      {"recompute", recompute_text(l.recompute)},
                      {"dispatcher", l.dispatcher.empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(l.dispatcher)}};
  j["layer_split"] =
      l.layer_split ? nlohmann::json{{"first", l.layer_split->first}, {"last", l.layer_split->last}}
                    : nlohmann::json(nullptr);
  j["pipeline_layout"] =
      l.pipeline_layout.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.pipeline_layout);
  j["account_for_embedding_in_pipeline_split"] = l.account_for_embedding_in_pipeline_split;
  j["account_for_loss_in_pipeline_split"] = l.account_for_loss_in_pipeline_split;
  return j;
}

nlohmann::json prediction_to_json(const LayoutPrediction& p, bool details) {
  nlohmann::json j = {
      {"layout", layout_to_json(p.layout)},
      {"tokens_per_s_per_gpu", p.speed.tokens_per_s_per_gpu},
      {"step_time_s", p.speed.step_time_s},
      {"mfu", p.speed.mfu},
      {"usd_per_million_tokens", p.speed.usd_per_million_tokens > 0
                                     ? nlohmann::json(p.speed.usd_per_million_tokens)
                                     : nlohmann::json(nullptr)},
      {"memory_bytes", p.memory.memory_bytes},
      {"usable_memory_bytes", p.memory.usable_bytes},
      {"fits", p.memory.fits}};
  if (details) {
    nlohmann::json stages = nlohmann::json::array();
    for (const StageMemory& s : p.memory.stages) {
      stages.push_back({{"stage", s.stage},
                        {"layers", s.layers},
                        {"in_flight_microbatches", s.in_flight_microbatches},
                        {"weights_bytes", s.weights_bytes},
                        {"gradients_bytes", s.gradients_bytes},
                        {"optimizer_bytes", s.optimizer_bytes},
                        {"activations_bytes", s.activations_bytes},
                        {"logits_bytes", s.logits_bytes},
                        {"total_bytes", s.total_bytes}});
    }
    nlohmann::json terms = nlohmann::json::array();
    for (const StepTimeTerm& t : p.speed.terms) {
      terms.push_back({{"name", t.name}, {"seconds", t.seconds}, {"detail", t.detail}});
    }
    j["memory_stages"] = stages;
    j["peak_stage"] = p.memory.peak.stage;
    j["memory_left_out"] = memory_left_out();
    j["step_time_terms"] = terms;
    j["flop_per_step_per_gpu"] = p.speed.flop_per_step_per_gpu;
  }
  return j;
}

std::string aligned_table(const std::vector<std::vector<std::string>>& rows,
                          const std::vector<bool>& right) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      bool r = i < right.size() && right[i];
      std::string pad(widths[i] - row[i].size(), ' ');
      line += (i == 0 ? "" : "  ") + (r ? pad + row[i] : row[i] + (i + 1 == row.size() ? "" : pad));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

namespace {

// The run settings of `workload` that export takes as flags, each with its leading space
// (run_setting_flags: the backend only when `layout` uses the flex dispatcher). The fused expert
// MLP (a published run's setting) has no flag and is left out.
std::string run_setting_flags_text(const PlanWorkload& workload, const Layout& layout) {
  std::string out;
  for (const std::string& flag : run_setting_flags(workload, layout.dispatcher == "flex"))
    out += " " + flag;
  return out;
}

}  // namespace

void erase_column(std::vector<std::vector<std::string>>& rows, std::vector<bool>& right,
                  std::size_t column) {
  for (std::vector<std::string>& row : rows) {
    if (column < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(column));
  }
  if (column < right.size()) right.erase(right.begin() + static_cast<std::ptrdiff_t>(column));
}

std::string layout_flags_text(const std::string& model_text, const ClusterShape& cluster,
                              const PlanWorkload& workload, const Layout& layout) {
  // What differs from the defaults export would otherwise take: the GPU type's node size, the
  // protocol's rows and batch.
  const bool own_node = cluster.gpu.per_node > 0 && cluster.per_node != cluster.gpu.per_node;
  return fmt::format(
      "--model {} --gpu {} --gpus {}{} --layout \"{}\" --recompute {}{}{}{}{}{}", model_text,
      cluster.gpu.type, cluster.gpus,
      own_node ? fmt::format(" --per-node {}", cluster.per_node) : "", layout_text(layout),
      recompute_text(layout.recompute),
      workload.row_tokens != kRowTokens ? fmt::format(" --seq-length {}", workload.row_tokens) : "",
      workload.global_batch != kGlobalBatchRows
          ? fmt::format(" --global-batch {}", workload.global_batch)
          : "",
      placement_flags_text(layout),
      layout.dispatcher.empty() ? "" : " --dispatcher " + layout.dispatcher,
      run_setting_flags_text(workload, layout));
}

std::string predicted_usd_text(double usd_per_million_tokens) {
  return usd_per_million_tokens > 0 ? format_usd(usd_per_million_tokens) : "no rate";
}

std::string prediction_explanation_text(const LayoutPrediction& p) {
  std::string out;
  const MemoryEstimate& m = p.memory;
  out += fmt::format("memory per GPU: {:.1f} GB on stage {} (of {:.1f} GB usable: {})\n",
                     gb(m.memory_bytes), m.peak.stage, gb(m.usable_bytes),
                     m.fits ? "fits" : "does not fit");
  std::vector<std::vector<std::string>> rows = {{"stage", "layers", "in flight", "weights",
                                                 "gradients", "optimizer", "activations", "logits",
                                                 "total GB"}};
  for (const StageMemory& s : m.stages) {
    rows.push_back(
        {fmt::format("{}", s.stage), fmt::format("{}", s.layers),
         fmt::format("{:.2f}", s.in_flight_microbatches),
         fmt::format("{:.1f}", gb(s.weights_bytes)), fmt::format("{:.1f}", gb(s.gradients_bytes)),
         fmt::format("{:.1f}", gb(s.optimizer_bytes)),
         fmt::format("{:.1f}", gb(s.activations_bytes)), fmt::format("{:.1f}", gb(s.logits_bytes)),
         fmt::format("{:.1f}", gb(s.total_bytes))});
  }
  out += aligned_table(rows, {true, true, true, true, true, true, true, true, true});
  out += fmt::format("left out of memory: {}\n", fmt::join(memory_left_out(), "; "));
  out += fmt::format("\nstep time: {:.3f} s -> {} tokens/s per GPU, MFU {}, {} per 1M tokens\n",
                     p.speed.step_time_s, format_thousands(p.speed.tokens_per_s_per_gpu, 1),
                     format_fraction_percent(p.speed.mfu, 1),
                     predicted_usd_text(p.speed.usd_per_million_tokens));
  std::vector<std::vector<std::string>> terms = {{"term", "seconds", "how"}};
  for (const StepTimeTerm& t : p.speed.terms)
    terms.push_back({t.name, fmt::format("{:.4f}", t.seconds), t.detail});
  out += aligned_table(terms, {false, true, false});
  return out;
}

}  // namespace openrecipes
