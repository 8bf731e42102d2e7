// The speed model's calibration on the repository's measurements (the catalog's verified recipes
// and data/measurements/): how long the fit with its leave-one-model-out refits takes, and the
// error figures issue 16 sets targets for (leave-one-model-out MAPE over every row and in every
// group of five or more rows; rank agreement within the catalog's own groups), as counters.
// Run: build/calibration_bench [--benchmark_repetitions=3] from the repository root.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "catalog/catalog_loader.h"
#include "catalog/measurement_dataset.h"
#include "plan/catalog_measurements.h"
#include "plan/published_measurements.h"
#include "plan/speed_calibration.h"
#include "validate/recipe_validator.h"

namespace openrecipes {
namespace {

const std::vector<MeasuredLayout>& measurements() {
  static const std::vector<MeasuredLayout> all = [] {
    CatalogCheck checked = check_catalog(".", {}, ".");
    if (!checked.loaded) {
      std::fprintf(stderr, "calibration_bench: run from the repository root (no catalog here)\n");
      std::exit(1);
    }
    std::vector<MeasuredLayout> m = measured_layouts(checked.loaded->catalog, checked.recipes);
    Problems problems;
    std::optional<MeasurementDataset> dataset =
        load_measurement_dataset(".", checked.loaded->catalog.gpus, problems);
    if (dataset) {
      PublishedLayouts published = published_layouts(".", *dataset, checked.loaded->catalog.gpus);
      m.insert(m.end(), published.layouts.begin(), published.layouts.end());
    }
    return m;
  }();
  return all;
}

void BM_CalibrateWithLeaveOneModelOut(benchmark::State& state) {
  SpeedCalibration c;
  for (auto _ : state) {
    c = calibrate_speed_model(measurements());
    benchmark::DoNotOptimize(c.mape);
  }
  double worst_group = 0, worst_rank = 1;
  for (const GroupError& g : c.groups)
    if (g.rows >= 5) worst_group = std::max(worst_group, g.mape);
  for (const RankAgreement& r : c.ranks)
    if (r.group.find("/ H200 /") != std::string::npos)
      worst_rank = std::min(worst_rank, r.spearman);
  state.counters["rows"] = static_cast<double>(c.rows.size());
  state.counters["models"] = c.models;
  state.counters["mape_pct"] = 100 * c.mape;
  state.counters["worst_group_mape_pct"] = 100 * worst_group;
  state.counters["catalog_min_spearman"] = worst_rank;
}
BENCHMARK(BM_CalibrateWithLeaveOneModelOut)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace openrecipes

BENCHMARK_MAIN();
