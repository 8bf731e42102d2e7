#include "site/unmeasured_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "site/published_context.h"

namespace openrecipes {

using json = nlohmann::json;

json unmeasured_page(const Model& model, const Gpu& gpu, const PairPrediction* prediction,
                     const SitePredictions& predictions, const MeasurementDataset* measurements) {
  json page = published_context(measurements, model, gpu);
  page["root"] = "../../";
  page["title"] = fmt::format("{} on {}: not measured yet", model.name, gpu.type);
  page["model"] = model.name;
  page["family"] = model.family;
  page["hf_repo"] = model.hf_repo;
  page["gpu"] = gpu.type;
  page["model_notes"] = note_blocks(model.notes);
  page["has_model_notes"] = !model.notes.empty();
  page["mape"] = fmt::format("{:.1f}%", 100 * predictions.mape);
  page["has_calibration"] = predictions.calibrated_rows > 0;
  page["calibrated_rows"] = format_count(static_cast<std::int64_t>(predictions.calibrated_rows));
  json suggestions = json::array();
  if (prediction) {
    int number = 0;
    for (const SuggestedLayout& s : prediction->layouts) {
      std::string draft = fmt::format("{}-{}-suggestion-{}.yaml", model.slug, gpu.slug, ++number);
      suggestions.push_back(
          {{"number", number},
           {"layout", s.layout},
           {"recompute", s.recompute},
           {"dispatcher", s.dispatcher},
           {"tokens_per_s", "≈" + format_thousands(s.tokens_per_s_per_gpu, 0)},
           {"tokens_per_s_value", std::round(s.tokens_per_s_per_gpu)},
           // With nothing calibrated there is no error to quote, not a zero one.
           {"band", predictions.calibrated_rows == 0 ? std::string("none: nothing measured")
                                                     : fmt::format("±{:.0f}%", 100 * s.band)},
           {"unlike_measured", s.unlike_measured},
           {"memory_gb", fmt::format("{:.1f}", s.memory_gb)},
           {"mfu", fmt::format("{:.1f}%", 100 * s.mfu)},
           {"usd_per_million", s.usd_per_million_tokens > 0 ? format_usd(s.usd_per_million_tokens)
                                                            : std::string("no rate")},
           {"export_command",
            fmt::format("openrecipes export {} --to megatron-lm -o {}", s.export_arguments, draft)},
           {"measure_command",
            fmt::format("openrecipes measure {} --slurm --partition PARTITION --rows ROWS.parquet",
                        draft)}});
    }
  }
  // A MoE model's suggestions name their dispatcher (flex needs DeepEP or HybridEP in the
  // stack); a dense model's have none, and no column.
  page["has_dispatcher"] =
      prediction && std::any_of(prediction->layouts.begin(), prediction->layouts.end(),
                                [](const SuggestedLayout& s) { return !s.dispatcher.empty(); });
  page["has_prediction"] = !suggestions.empty();
  page["suggestions"] = suggestions;
  page["gpus"] = prediction ? prediction->gpus : 0;
  page["no_layout_reason"] = prediction && !prediction->no_layout_reason.empty()
                                 ? prediction->no_layout_reason
                                 : std::string("nothing was predicted for this pair");
  return page;
}

}  // namespace openrecipes
