#include "tune/tune_summary.h"

#include <fmt/format.h>

#include <cstdint>

namespace openrecipes {

std::string tune_summary_text(const nlohmann::ordered_json& summary) {
  std::string out =
      fmt::format("tune: {} on {} x {}, state {}\n", summary["model"].get<std::string>(),
                  summary["gpus"].get<int>(), summary["gpu"].get<std::string>(),
                  summary["state"].get<std::string>());
  out += fmt::format("{:>3}  {:<46} {:>8} {:>10} {:>10} {:>7}  {}\n", "run", "layout", "job",
                     "predicted", "measured", "error", "result");
  for (const nlohmann::ordered_json& run : summary["runs"]) {
    std::string layout = run["label"].get<std::string>();
    std::string recompute = run["recompute"].get<std::string>();
    if (!recompute.empty() && recompute != "none") layout += ", recompute " + recompute;
    std::string measured = run["tokens_per_s_per_gpu"].is_number()
                               ? fmt::format("{:.0f}", run["tokens_per_s_per_gpu"].get<double>())
                               : "-";
    std::string error =
        run["error"].is_number() ? fmt::format("{:+.1f}%", 100 * run["error"].get<double>()) : "-";
    std::string result = run["outcome"].get<std::string>();
    if (run["failure"].is_string())
      result = run["failure"].get<std::string>() + ": " + run["detail"].get<std::string>();
    out +=
        fmt::format("{:>3}  {:<46} {:>8} {:>10.0f} {:>10} {:>7}  {}\n", run["run"].get<int>(),
                    layout, run["job"].get<std::int64_t>(),
                    run["predicted_tokens_per_s_per_gpu"].get<double>(), measured, error, result);
  }
  out += fmt::format("GPU-hours spent by the search: {:.4f}\n", summary["gpu_hours"].get<double>());
  if (summary["stop"].is_object())
    out += fmt::format("stopped ({}): {}\n", summary["stop"]["reason"].get<std::string>(),
                       summary["stop"]["detail"].get<std::string>());
  if (summary["best"].is_object())
    out +=
        fmt::format("best: run {}, {} at {:.0f} tokens/s per GPU\n",
                    summary["best"]["run"].get<int>(), summary["best"]["label"].get<std::string>(),
                    summary["best"]["tokens_per_s_per_gpu"].get<double>());
  if (summary["best_measured_before"].is_object())
    out += fmt::format("best measured before this session: {:.0f} tokens/s per GPU ({})\n",
                       summary["best_measured_before"]["tokens_per_s_per_gpu"].get<double>(),
                       summary["best_measured_before"]["name"].get<std::string>());
  if (summary["reference"].is_object())
    out +=
        fmt::format("reference arm: job {}, {}\n", summary["reference"]["job"].get<std::int64_t>(),
                    summary["reference"]["event"] == "reference_measured" ? "measured" : "failed");
  if (summary["recipe"].is_object())
    out += fmt::format("wrote {}: {}\n", summary["recipe"]["path"].get<std::string>(),
                       summary["recipe"]["status"].get<std::string>());
  return out;
}

}  // namespace openrecipes
