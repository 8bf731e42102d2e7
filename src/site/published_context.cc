#include "site/published_context.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/ascii.h"
#include "base/number_format.h"

namespace openrecipes {
namespace {

using json = nlohmann::json;

// Releases are dotted numbers (25.09, 26.04.01): compared part by part, as numbers.
std::vector<int> release_parts(const std::string& release) {
  std::vector<int> parts;
  int value = 0;
  bool digits = false;
  for (char c : release) {
    if (ascii_digit(c)) {
      value = value * 10 + (c - '0');
      digits = true;
    } else if (digits) {
      parts.push_back(value);
      value = 0;
      digits = false;
    }
  }
  if (digits) parts.push_back(value);
  return parts;
}

std::string layout_of(const PublishedMeasurement& row) {
  std::string out = fmt::format("TP{} PP{}", row.tp, row.pp);
  if (row.vpp) out += fmt::format(" VPP{}", *row.vpp);
  out += fmt::format(" CP{}", row.cp);
  if (row.ep) out += fmt::format(" EP{}", *row.ep);
  if (row.etp) out += fmt::format(" ETP{}", *row.etp);
  if (row.fsdp && *row.fsdp > 0) out += fmt::format(" FSDP{}", *row.fsdp);
  return out;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

}  // namespace

json published_context(const MeasurementDataset* dataset, const Model& model, const Gpu& gpu) {
  std::vector<const PublishedMeasurement*> rows;
  if (dataset) {
    for (const PublishedMeasurement& row : dataset->rows) {
      if (row.model == model.slug && row.gpu == gpu.type) rows.push_back(&row);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    std::vector<int> ra = release_parts(a->release), rb = release_parts(b->release);
    if (ra != rb) return ra > rb;
    if (a->gpus != b->gpus) return a->gpus < b->gpus;
    return a->tokens_per_s_per_gpu > b->tokens_per_s_per_gpu;
  });
  json list = json::array();
  for (const PublishedMeasurement* row : rows) {
    std::vector<std::string> notes = row->notes;
    if (!row->known_issue.empty()) notes.push_back("known issue: " + row->known_issue);
    const MeasurementSource& s = row->source;
    list.push_back({{"release", row->release},
                    {"task", row->task},
                    {"variant", join(row->variant, ", ")},
                    {"has_variant", !row->variant.empty()},  // Mustache takes "" as true
                    {"gpus", row->gpus},
                    {"precision", row->precision_as_written.value_or(row->precision)},
                    {"gbs", format_count(row->gbs)},
                    {"mbs", row->mbs},
                    {"seq_length", format_count(row->seq_length)},
                    {"layout", layout_of(*row)},
                    {"tokens_per_s", format_thousands(row->tokens_per_s_per_gpu, 0)},
                    {"tokens_per_s_value", row->tokens_per_s_per_gpu},
                    {"tflops", format_thousands(row->model_tflop_per_s_per_gpu, 0)},
                    {"note", join(notes, "; ")},
                    {"has_note", !notes.empty()},
                    {"cite_href", fmt::format("{}/blob/{}/{}#L{}", kPublishedTablesRepository,
                                              s.commit, s.file, s.line)},
                    {"cite_text", fmt::format("{}@{}, {}, row {}", s.file, s.commit.substr(0, 7),
                                              s.section, s.row)}});
  }
  return {{"has_published", !list.empty()}, {"published_count", list.size()}, {"published", list}};
}

}  // namespace openrecipes
