// The site's pictures as plain JSON for the chart templates (templates/_line_chart.mustache,
// templates/_bar_chart.mustache), which draw them as inline SVG at build time: no script, nothing
// from another host. Every chart has a title, a description and a data table holding the same
// numbers, so that a screen reader (and a test) reads what the picture shows. Geometry is in SVG
// user units (the viewBox); the page scales it to the column's width.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalog/recipe.h"

namespace openrecipes {

/// The step time of every step of the measured run (`result.step_times_s`, seconds) as a line,
/// with the scored window [`window_first`, `window_last`] shaded; null when the recipe states no
/// step times. `id` makes the chart's element ids unique on its page. Returns {id, title,
/// description, width, height, plot box, x and y ticks and labels, band, series [{name, class,
/// points, dots}], legend, table {caption, columns, rows}}.
nlohmann::json step_time_chart(const RecipeResult& result, const std::string& id);

/// The convergence check's two loss curves (`correctness.convergence.losses`), candidate solid and
/// reference dashed, with the steps the comparison scores shaded (after Megatron-Bridge's
/// skipped leading fifth, runs/convergence.h); null when the recipe states no losses.
nlohmann::json loss_chart(const Convergence& convergence, const std::string& id);

/// One bar of a horizontal bar chart: its label (a recipe), the figure as shown, and its value.
struct Bar {
  std::string label;  ///< e.g. "#1 attune-tp1-pp4-ep8"
  std::string text;   ///< the figure as the page writes it, e.g. "2,289.7" or "$0.83"
  double value = 0;   ///< the bar's length, in the figure's unit (tokens/s per GPU, USD)
  std::string href;   ///< the recipe's page, relative to the chart's page
};

/// Horizontal bars, one per entry of `bars` in the given order, scaled to the largest value
/// (at least one bar, every value finite and >= 0). `column` names the figure in the data table.
/// Returns {id, title, description, width, height, bars [{label, text, href, x, y, width, ...}],
/// table}; null when `bars` is empty.
nlohmann::json bar_chart(const std::vector<Bar>& bars, const std::string& id,
                         const std::string& title, const std::string& description,
                         const std::string& column);

}  // namespace openrecipes
