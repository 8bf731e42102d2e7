#include "plan/calibration_report.h"

#include <fmt/format.h>

#include <cmath>

#include "base/number_format.h"
#include "plan/plan_report.h"

namespace openrecipes {

nlohmann::json calibration_to_json(const SpeedCalibration& c) {
  nlohmann::json parameters = nlohmann::json::object(), fitted = nlohmann::json::array();
  for (const FittedParameter& f : c.fitted) {
    parameters[f.name] = f.value;
    fitted.push_back({{"name", f.name},
                      {"value", f.value},
                      {"prior", f.prior},
                      {"low", f.low},
                      {"high", f.high},
                      {"at_bound", f.at_bound}});
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const CalibrationRow& r : c.rows) {
    rows.push_back({{"name", r.name},
                    {"model", r.model},
                    {"group", r.group_key},
                    {"gpu_type", r.gpu_type},
                    {"precision", r.precision},
                    {"moe", r.moe},
                    {"published", r.published},
                    {"measured_tokens_per_s_per_gpu", r.measured_tokens_per_s_per_gpu},
                    {"fitted_tokens_per_s_per_gpu", r.fitted_tokens_per_s_per_gpu},
                    {"leave_one_out_tokens_per_s_per_gpu", r.leave_one_out_tokens_per_s_per_gpu},
                    {"leave_one_out_error", r.leave_one_out_error}});
  }
  nlohmann::json groups = nlohmann::json::array(), ranks = nlohmann::json::array();
  for (const GroupError& g : c.groups)
    groups.push_back({{"group", g.group}, {"rows", g.rows}, {"mape", g.mape}});
  for (const RankAgreement& r : c.ranks)
    ranks.push_back({{"group", r.group},
                     {"rows", r.rows},
                     {"spearman", std::isnan(r.spearman) ? nlohmann::json(nullptr)
                                                         : nlohmann::json(r.spearman)}});
  nlohmann::json bands = {{"rows", c.band_coverage.rows},
                          {"within", c.band_coverage.within},
                          {"median_band", c.band_coverage.median_band}};
  return {{"parameters", parameters}, {"fitted", fitted}, {"rows", rows},          {"mape", c.mape},
          {"groups", groups},         {"ranks", ranks},   {"band_coverage", bands}};
}

std::string calibration_text(const SpeedCalibration& c) {
  std::vector<std::vector<std::string>> rows = {
      {"measurement", "measured", "fitted", "leave-one-model-out", "error"}};
  for (const CalibrationRow& r : c.rows) {
    rows.push_back({r.name, format_thousands(r.measured_tokens_per_s_per_gpu, 0),
                    format_thousands(r.fitted_tokens_per_s_per_gpu, 0),
                    format_thousands(r.leave_one_out_tokens_per_s_per_gpu, 0),
                    fmt::format("{:+.1f}%", 100 * r.leave_one_out_error)});
  }
  std::string out = fmt::format(
      "tokens/s per GPU, measured and predicted by the speed model ({} rows, {} models; each "
      "model's rows predicted by a fit on the other models)\n",
      c.rows.size(), c.models);
  out += aligned_table(rows, {false, true, true, true, true});
  std::vector<std::vector<std::string>> params = {{"parameter", "fitted", "prior", "bounds", ""}};
  for (const FittedParameter& f : c.fitted)
    params.push_back({f.name, fmt::format("{:.4g}", f.value), fmt::format("{:.4g}", f.prior),
                      fmt::format("[{:.3g}, {:.3g}]", f.low, f.high),
                      f.at_bound ? "at a bound" : ""});
  out += "\n" + aligned_table(params, {false, true, true, false, false});
  std::vector<std::vector<std::string>> groups = {{"group", "rows", "leave-one-model-out MAPE"}};
  groups.push_back({"all", fmt::format("{}", c.rows.size()), fmt::format("{:.1f}%", 100 * c.mape)});
  for (const GroupError& g : c.groups)
    if (g.rows > 0)
      groups.push_back({g.group, fmt::format("{}", g.rows), fmt::format("{:.1f}%", 100 * g.mape)});
  out += "\n" + aligned_table(groups, {false, true, true});
  if (!c.ranks.empty()) {
    std::vector<std::vector<std::string>> ranks = {
        {"same model, GPU type and count", "rows", "Spearman rho"}};
    for (const RankAgreement& r : c.ranks)
      ranks.push_back({r.group, fmt::format("{}", r.rows),
                       std::isnan(r.spearman) ? "n/a" : fmt::format("{:+.2f}", r.spearman)});
    out += "\n" + aligned_table(ranks, {false, true, true});
  }
  if (c.band_coverage.rows > 0) {
    const BandCoverage& b = c.band_coverage;
    out += fmt::format(
        "\nerror bands: {} of {} rows ({:.0f}%) have a leave-one-model-out error within the band "
        "their nearest rows of other models give (median band ±{:.0f}%); one standard deviation "
        "would hold 68%\n",
        b.within, b.rows, 100.0 * b.within / b.rows, 100 * b.median_band);
  }
  return out;
}

}  // namespace openrecipes
