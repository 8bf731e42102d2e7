#include "site/chart_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/number_format.h"
#include "runs/convergence.h"

namespace openrecipes {
namespace {

using nlohmann::json;

// The line charts' box, in SVG user units: the plot sits inside the margins, which hold the tick
// labels (left, bottom), the legend (top) and the axis titles.
constexpr double kWidth = 640, kHeight = 260;
constexpr double kLeft = 64, kRight = 16, kTop = 30, kBottom = 44;
constexpr double kPlotWidth = kWidth - kLeft - kRight, kPlotHeight = kHeight - kTop - kBottom;
// Dots mark each step up to this many steps; beyond it the line alone reads better.
constexpr std::size_t kMaxDots = 200;

std::string coordinate(double value) { return fmt::format("{:.1f}", value); }

// An axis from lo to hi with ticks every `step`: 1, 2 or 5 times a power of ten, about `target`
// ticks over the range (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990).
struct Axis {
  double lo = 0, hi = 1, step = 1;
  int decimals = 0;  ///< of a tick label
};

double nice_step(double range, int target) {
  double raw = range / target;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double fraction = raw / magnitude;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude;
}

int tick_decimals(double step) {
  return std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
}

// A value axis: widened to whole ticks either side of [lo, hi].
Axis value_axis(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.1);
  Axis axis;
  axis.step = nice_step(hi - lo, target);
  axis.lo = std::floor(lo / axis.step + 1e-9) * axis.step;
  axis.hi = std::ceil(hi / axis.step - 1e-9) * axis.step;
  axis.decimals = tick_decimals(axis.step);
  return axis;
}

// The step axis of `steps` steps: exactly 0 to steps - 1 (the line spans the plot), ticks at
// whole steps.
Axis step_axis(std::size_t steps) {
  Axis axis;
  axis.lo = 0;
  axis.hi = steps > 1 ? static_cast<double>(steps - 1) : 1;
  axis.step = std::max(1.0, std::round(nice_step(axis.hi, 5)));
  return axis;
}

double x_of(const Axis& axis, double value) {
  return kLeft + (value - axis.lo) / (axis.hi - axis.lo) * kPlotWidth;
}
double y_of(const Axis& axis, double value) {
  return kTop + kPlotHeight - (value - axis.lo) / (axis.hi - axis.lo) * kPlotHeight;
}

json x_ticks(const Axis& axis) {
  json ticks = json::array();
  for (double v = axis.lo; v <= axis.hi + 1e-9; v += axis.step) {
    ticks.push_back({{"x", coordinate(x_of(axis, v))},
                     {"y", coordinate(kTop + kPlotHeight + 16)},
                     {"label", fmt::format("{:.{}f}", v, axis.decimals)}});
  }
  return ticks;
}

json y_ticks(const Axis& axis) {
  json ticks = json::array();
  for (double v = axis.lo; v <= axis.hi + axis.step * 1e-6; v += axis.step) {
    std::string y = coordinate(y_of(axis, v));
    ticks.push_back({{"y", y},
                     {"label_x", coordinate(kLeft - 6)},
                     {"label_y", coordinate(y_of(axis, v) + 4)},
                     {"x1", coordinate(kLeft)},
                     {"x2", coordinate(kLeft + kPlotWidth)},
                     {"label", fmt::format("{:.{}f}", v, axis.decimals)}});
  }
  return ticks;
}

// One series: the polyline's points and, for short series, a dot per value (step = index).
json series(const std::string& name, const std::string& css_class, const std::vector<double>& ys,
            const Axis& x_axis, const Axis& y_axis) {
  std::string points;
  json dots = json::array();
  for (std::size_t i = 0; i < ys.size(); ++i) {
    std::string x = coordinate(x_of(x_axis, static_cast<double>(i)));
    std::string y = coordinate(y_of(y_axis, ys[i]));
    points += (points.empty() ? "" : " ") + x + "," + y;
    if (ys.size() <= kMaxDots) dots.push_back({{"cx", x}, {"cy", y}});
  }
  return {{"name", name}, {"class", css_class}, {"points", points}, {"dots", dots}};
}

// The shaded steps [first, last], half a step either side, within the plot.
json band(const Axis& x_axis, int first, int last, const std::string& label) {
  double left = std::max(kLeft, x_of(x_axis, first - 0.5));
  double right = std::min(kLeft + kPlotWidth, x_of(x_axis, last + 0.5));
  return {{"x", coordinate(left)},
          {"y", coordinate(kTop)},
          {"width", coordinate(right - left)},
          {"height", coordinate(kPlotHeight)},
          {"label", label},
          {"label_x", coordinate(left + 4)},
          {"label_y", coordinate(kTop + 14)}};
}

// The frame every line chart shares: size, axes, ticks and the axis titles.
json line_frame(const std::string& id, const std::string& title, const std::string& description,
                const Axis& x_axis, const Axis& y_axis, const std::string& x_label,
                const std::string& y_label) {
  return {{"id", id},
          {"title", title},
          {"description", description},
          {"width", coordinate(kWidth)},
          {"height", coordinate(kHeight)},
          {"axis_left", coordinate(kLeft)},
          {"axis_right", coordinate(kLeft + kPlotWidth)},
          {"axis_top", coordinate(kTop)},
          {"axis_bottom", coordinate(kTop + kPlotHeight)},
          {"x_ticks", x_ticks(x_axis)},
          {"y_ticks", y_ticks(y_axis)},
          {"x_label", x_label},
          {"x_label_x", coordinate(kLeft + kPlotWidth / 2)},
          {"x_label_y", coordinate(kHeight - 6)},
          {"y_label", y_label},
          {"y_label_x", coordinate(-(kTop + kPlotHeight / 2))},
          {"y_label_y", coordinate(16)}};
}

json legend(const std::vector<std::pair<std::string, std::string>>& entries) {
  json out = json::array();
  double x = kLeft;
  for (const auto& [name, css_class] : entries) {
    out.push_back({{"name", name},
                   {"class", css_class},
                   {"x1", coordinate(x)},
                   {"x2", coordinate(x + 24)},
                   {"y", coordinate(kTop - 12)},
                   {"text_x", coordinate(x + 30)},
                   {"text_y", coordinate(kTop - 8)}});
    x += 30 + 8.0 * static_cast<double>(name.size()) + 24;
  }
  return out;
}

std::string shortest(double value) { return fmt::format("{}", value); }

}  // namespace

json step_time_chart(const RecipeResult& r, const std::string& id) {
  const std::vector<double>& times = r.step_times_s;
  if (times.empty()) return nullptr;
  double most = *std::max_element(times.begin(), times.end());
  double least = *std::min_element(times.begin(), times.end());
  Axis x_axis = step_axis(times.size());
  Axis y_axis = value_axis(0, most, 5);
  bool windowed = r.window_first >= 0 && r.window_first <= r.window_last &&
                  static_cast<std::size_t>(r.window_last) < times.size();
  double window_sum = 0;
  json rows = json::array();
  for (std::size_t step = 0; step < times.size(); ++step) {
    bool scored = windowed && static_cast<int>(step) >= r.window_first &&
                  static_cast<int>(step) <= r.window_last;
    if (scored) window_sum += times[step];
    rows.push_back({{"cells", {std::to_string(step), shortest(times[step]), scored ? "yes" : ""}}});
  }
  std::string description =
      fmt::format("Step time of each of the run's {} steps, from {} s to {} s.", times.size(),
                  format_stated(round_to(least, 3)), format_stated(round_to(most, 3)));
  if (windowed) {
    double mean = window_sum / (r.window_last - r.window_first + 1);
    description += fmt::format(
        " The shaded band is the scored window, steps {} to {}, whose mean step time is {} s.",
        r.window_first, r.window_last, format_stated(round_to(mean, 3)));
  }
  json chart = line_frame(id, "Step time per step", description, x_axis, y_axis, "Step (0-based)",
                          "Step time (s)");
  if (windowed) {
    chart["band"] = band(x_axis, r.window_first, r.window_last,
                         fmt::format("scored window, steps {}–{}", r.window_first, r.window_last));
  }
  chart["series"] = json::array({series("Step time", "series-a", times, x_axis, y_axis)});
  chart["legend"] = json::array();
  chart["table"] = {{"caption", "Step time of every step"},
                    {"columns", {"Step", "Step time (s)", "In the scored window"}},
                    {"rows", rows}};
  return chart;
}

json loss_chart(const Convergence& c, const std::string& id) {
  const std::vector<double>& candidate = c.candidate_losses;
  const std::vector<double>& reference = c.reference_losses;
  if (candidate.empty() || candidate.size() != reference.size()) return nullptr;
  auto [c_low, c_high] = std::minmax_element(candidate.begin(), candidate.end());
  auto [r_low, r_high] = std::minmax_element(reference.begin(), reference.end());
  double low = std::min(*c_low, *r_low), high = std::max(*c_high, *r_high);
  Axis x_axis = step_axis(candidate.size());
  Axis y_axis = value_axis(low, high, 5);
  // The comparison skips int(n x fraction) leading steps (runs/convergence.h).
  int skip = static_cast<int>(static_cast<double>(candidate.size()) *
                              ConvergenceThresholds{}.skip_first_fraction);
  int last = static_cast<int>(candidate.size()) - 1;
  json rows = json::array();
  for (std::size_t step = 0; step < candidate.size(); ++step) {
    rows.push_back(
        {{"cells", {std::to_string(step), shortest(candidate[step]), shortest(reference[step])}}});
  }
  std::string description = fmt::format(
      "Training loss at each of {} steps: the candidate run (this recipe, solid line) and the "
      "reference run (dashed line). The shaded band marks the steps the comparison scores, {} to "
      "{}. Final loss: candidate {}, reference {}.",
      candidate.size(), skip, last, shortest(candidate.back()), shortest(reference.back()));
  json chart = line_frame(id, "Loss per step, candidate and reference", description, x_axis, y_axis,
                          "Step (0-based)", "Loss");
  if (skip <= last) {
    chart["band"] = band(x_axis, skip, last, fmt::format("scored steps {}–{}", skip, last));
  }
  chart["series"] = json::array({series("Candidate", "series-a", candidate, x_axis, y_axis),
                                 series("Reference", "series-b", reference, x_axis, y_axis)});
  chart["legend"] = legend({{"Candidate (this recipe)", "series-a"}, {"Reference", "series-b"}});
  chart["table"] = {{"caption", "Loss of both runs at every step"},
                    {"columns", {"Step", "Candidate loss", "Reference loss"}},
                    {"rows", rows}};
  return chart;
}

json bar_chart(const std::vector<Bar>& bars, const std::string& id, const std::string& title,
               const std::string& description, const std::string& column) {
  if (bars.empty()) return nullptr;
  // A row per bar: the label above, the bar below it, the figure at the bar's end.
  constexpr double kRow = 34, kBarHeight = 12, kValueRoom = 96;
  double largest = 0;
  for (const Bar& bar : bars) largest = std::max(largest, bar.value);
  json out = json::array();
  json rows = json::array();
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& bar = bars[i];
    double top = 4 + kRow * static_cast<double>(i);
    double length = largest > 0 ? std::max(1.0, bar.value / largest * (kWidth - kValueRoom)) : 1;
    out.push_back({{"label", bar.label},
                   {"text", bar.text},
                   {"label_y", coordinate(top + 12)},
                   {"y", coordinate(top + 17)},
                   {"width", coordinate(length)},
                   {"height", coordinate(kBarHeight)},
                   {"text_x", coordinate(length + 6)},
                   {"text_y", coordinate(top + 27)}});
    rows.push_back({{"label", bar.label}, {"href", bar.href}, {"text", bar.text}});
  }
  return {{"id", id},
          {"title", title},
          {"description", description},
          {"width", coordinate(kWidth)},
          {"height", coordinate(8 + kRow * static_cast<double>(bars.size()))},
          {"bars", out},
          {"table", {{"caption", title}, {"column", column}, {"rows", rows}}}};
}

}  // namespace openrecipes
