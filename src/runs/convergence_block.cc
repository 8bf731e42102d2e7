#include "runs/convergence_block.h"

#include <fmt/format.h>

#include <cmath>

#include "base/yaml_scalar.h"

namespace openrecipes {
namespace {

nlohmann::ordered_json finite(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nullptr;
}

std::string scored_note(const ConvergenceResult& r) {
  std::string note = fmt::format("{} scored steps", r.points.size());
  if (!r.points.empty())
    note += fmt::format(" ({}-{})", r.points.front().step, r.points.back().step);
  note += fmt::format(", {} residual outlier{}", r.outliers, r.outliers == 1 ? "" : "s");
  for (const std::string& failure : r.failures) note += "; " + failure;
  return note;
}

}  // namespace

std::string convergence_table(const ConvergenceResult& result) {
  std::string out = fmt::format("{:>6}  {:>12}  {:>12}  {:>10}  {:>9}\n", "step", "candidate",
                                "reference", "rel diff", "tolerance");
  for (const ScoredPoint& p : result.points) {
    std::string mark = p.relative_difference > p.tolerance ? "  out of tolerance" : "";
    if (p.outlier) mark += "  outlier";
    out += fmt::format("{:>6}  {:>12.6f}  {:>12.6f}  {:>10.6f}  {:>9.3f}{}\n", p.step, p.candidate,
                       p.reference, p.relative_difference, p.tolerance, mark);
  }
  return out;
}

std::string convergence_losses_yaml(std::span<const double> candidate,
                                    std::span<const double> reference) {
  return fmt::format("    losses:\n      candidate: {}\n      reference: {}\n",
                     yaml_number_list(candidate, 8), yaml_number_list(reference, 8));
}

std::string convergence_block_yaml(const ConvergenceResult& r) {
  std::string out = "  convergence:\n";
  out += fmt::format("    steps: {}\n", r.steps);
  out += fmt::format("    result: {}\n", r.passed ? "pass" : "fail");
  out += std::isfinite(r.correlation)
             ? fmt::format("    correlation: {:.6f}\n", r.correlation)
             : "    correlation: null  # a constant loss series has none\n";
  out += fmt::format("    final_loss_difference: {:.2g}\n", r.final_loss_difference);
  out += fmt::format("    pointwise_failures: {}\n", r.pointwise_failures);
  if (std::isfinite(r.worst_step_tolerance_ratio)) {
    out += fmt::format("    worst_step_tolerance_ratio: {:.3f}\n", r.worst_step_tolerance_ratio);
  }
  out += fmt::format("    note: {}\n", yaml_scalar(scored_note(r)));
  if (!r.candidate_losses.empty()) {
    out += convergence_losses_yaml(r.candidate_losses, r.reference_losses);
  } else {
    out += "    # losses: the runs do not both log a finite loss at every step from 0\n";
  }
  return out;
}

nlohmann::ordered_json convergence_json(const ConvergenceResult& r, const LossSeries& candidate,
                                        const LossSeries& reference) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const ScoredPoint& p : r.points) {
    points.push_back({{"step", p.step},
                      {"candidate", p.candidate},
                      {"reference", p.reference},
                      {"relative_difference", p.relative_difference},
                      {"tolerance", p.tolerance},
                      {"outlier", p.outlier}});
  }
  return {{"candidate", {{"path", candidate.path}, {"source", candidate.source}}},
          {"reference", {{"path", reference.path}, {"source", reference.source}}},
          {"result", r.passed ? "pass" : "fail"},
          {"steps", r.steps},
          {"scored_points", r.points.size()},
          {"correlation", finite(r.correlation)},
          {"final_loss_difference", finite(r.final_loss_difference)},
          {"pointwise_failures", r.pointwise_failures},
          {"worst_step_tolerance_ratio", finite(r.worst_step_tolerance_ratio)},
          {"outliers", r.outliers},
          {"failures", r.failures},
          {"points", points},
          {"losses", r.candidate_losses.empty()
                         ? nlohmann::ordered_json(nullptr)
                         : nlohmann::ordered_json{{"candidate", r.candidate_losses},
                                                  {"reference", r.reference_losses}}}};
}

}  // namespace openrecipes
