#include "site/pair_predictions_cache.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace openrecipes {
namespace {

using Json = nlohmann::json;

// Reads field `name` of `object` into `out` when it has exactly the type of `out`; false otherwise.
bool take(const Json& object, const char* name, std::string& out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}
bool take(const Json& object, const char* name, double& out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_number() || !std::isfinite(it->get<double>())) return false;
  out = it->get<double>();
  return true;
}
bool take(const Json& object, const char* name, bool& out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_boolean()) return false;
  out = it->get<bool>();
  return true;
}
template <typename Integer>
bool take_count(const Json& object, const char* name, Integer& out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_number_unsigned()) return false;
  std::uint64_t value = it->get<std::uint64_t>();
  if (value > static_cast<std::uint64_t>(std::numeric_limits<Integer>::max())) return false;
  out = static_cast<Integer>(value);
  return true;
}

Json layout_json(const SuggestedLayout& s) {
  return {{"layout", s.layout},
          {"recompute", s.recompute},
          {"dispatcher", s.dispatcher},
          {"tokens_per_s_per_gpu", s.tokens_per_s_per_gpu},
          {"band", s.band},
          {"unlike_measured", s.unlike_measured},
          {"memory_gb", s.memory_gb},
          {"mfu", s.mfu},
          {"usd_per_million_tokens", s.usd_per_million_tokens},
          {"export_arguments", s.export_arguments}};
}

std::optional<SuggestedLayout> layout_from(const Json& j) {
  SuggestedLayout s;
  if (!j.is_object() || !take(j, "layout", s.layout) || !take(j, "recompute", s.recompute) ||
      !take(j, "dispatcher", s.dispatcher) ||
      !take(j, "tokens_per_s_per_gpu", s.tokens_per_s_per_gpu) || !take(j, "band", s.band) ||
      !take(j, "unlike_measured", s.unlike_measured) || !take(j, "memory_gb", s.memory_gb) ||
      !take(j, "mfu", s.mfu) || !take(j, "usd_per_million_tokens", s.usd_per_million_tokens) ||
      !take(j, "export_arguments", s.export_arguments))
    return std::nullopt;
  return s;
}

}  // namespace

Json site_predictions_to_json(const SitePredictions& predictions) {
  Json pairs = Json::array();
  for (const PairPrediction& p : predictions.pairs) {
    Json layouts = Json::array();
    for (const SuggestedLayout& s : p.layouts) layouts.push_back(layout_json(s));
    pairs.push_back({{"model", p.model},
                     {"gpu_type", p.gpu_type},
                     {"gpus", static_cast<std::uint64_t>(p.gpus)},
                     {"layouts", layouts},
                     {"no_layout_reason", p.no_layout_reason}});
  }
  return {{"pairs", pairs},
          {"mape", predictions.mape},
          {"calibrated_rows", static_cast<std::uint64_t>(predictions.calibrated_rows)}};
}

std::optional<SitePredictions> site_predictions_from_json(const Json& json) {
  SitePredictions out;
  if (!json.is_object() || !take(json, "mape", out.mape) ||
      !take_count(json, "calibrated_rows", out.calibrated_rows) || !json.contains("pairs") ||
      !json["pairs"].is_array())
    return std::nullopt;
  for (const Json& j : json["pairs"]) {
    PairPrediction p;
    if (!j.is_object() || !take(j, "model", p.model) || !take(j, "gpu_type", p.gpu_type) ||
        !take_count(j, "gpus", p.gpus) || !take(j, "no_layout_reason", p.no_layout_reason) ||
        !j.contains("layouts") || !j["layouts"].is_array())
      return std::nullopt;
    for (const Json& l : j["layouts"]) {
      std::optional<SuggestedLayout> s = layout_from(l);
      if (!s) return std::nullopt;
      p.layouts.push_back(std::move(*s));
    }
    out.pairs.push_back(std::move(p));
  }
  return out;
}

SitePredictions predict_unmeasured_pairs_cached(const CatalogCheck& check, const ResultCache* cache,
                                                const std::string& key) {
  if (cache) {
    if (std::optional<Json> stored = cache->read(key)) {
      if (std::optional<SitePredictions> predictions = site_predictions_from_json(*stored))
        return std::move(*predictions);
    }
  }
  SitePredictions predictions = predict_unmeasured_pairs(check);
  if (cache) cache->write(key, site_predictions_to_json(predictions));
  return predictions;
}

}  // namespace openrecipes
