#include "plan/prediction_band.h"

#include <gtest/gtest.h>

#include <cmath>

namespace openrecipes {
namespace {

MeasuredLayout row(const std::string& model, bool moe, const std::string& gpu, int gpus, int tp,
                   int ep, double tokens_per_s) {
  MeasuredLayout m;
  m.name = model + " " + gpu + " " + std::to_string(gpus);
  m.model.name = model;
  if (moe) m.model.experts = 8;
  m.cluster.gpu.type = gpu;
  m.cluster.gpus = gpus;
  m.layout.tp = tp;
  m.layout.ep = ep;
  m.tokens_per_s_per_gpu = tokens_per_s;
  return m;
}

TEST(PredictionBand, DistanceByHand) {
  MeasuredLayout a = row("x", false, "H100", 8, 1, 1, 1);
  EXPECT_EQ(layout_distance(a, a), 0);
  // Another model (0.5), TP 4 vs 1 (0.5 x 2), 32 vs 8 GPUs (0.5 x 2): 2.5.
  EXPECT_DOUBLE_EQ(layout_distance(a, row("y", false, "H100", 32, 4, 1, 1)), 2.5);
  // Dense against MoE (2), another GPU (1), another model (0.5), EP 8 (1.5): 5.
  EXPECT_DOUBLE_EQ(layout_distance(a, row("z", true, "B200", 8, 1, 8, 1)), 5);
}

TEST(PredictionBand, TakesTheNearestRowsLeaveOneOutErrors) {
  std::vector<MeasuredLayout> measured = {row("x", false, "H100", 8, 1, 1, 100),
                                          row("x", false, "H100", 16, 1, 1, 90),
                                          row("z", true, "B200", 64, 1, 8, 50)};
  SpeedCalibration c;
  for (double e : {0.1, -0.2, 0.9}) {
    CalibrationRow r;
    r.leave_one_out_error = e;
    c.rows.push_back(r);
  }
  MeasuredLayout candidate = row("x", false, "H100", 8, 2, 1, 0);
  PredictionBand band = prediction_band(c, measured, candidate);
  EXPECT_EQ(band.rows, 3);
  EXPECT_NEAR(band.relative_error, std::sqrt((0.01 + 0.04 + 0.81) / 3), 1e-12);
  EXPECT_EQ(band.nearest, measured[0].name);
  EXPECT_DOUBLE_EQ(band.nearest_distance, 0.5);
  EXPECT_FALSE(band.unlike_measured);
  MeasuredLayout far = row("w", true, "GB300", 512, 8, 64, 0);
  EXPECT_TRUE(prediction_band(c, measured, far).unlike_measured);
  EXPECT_TRUE(prediction_band(SpeedCalibration{}, {}, candidate).unlike_measured);
}

// Each row's band comes from the other models' rows only. Rows x1, x2 (model x; errors 0.1 and
// -0.2), y (error 0.9) and z (error 0.05): x1's and x2's bands are those of y and z,
// sqrt((0.81 + 0.0025) / 2) = 0.637, which hold 0.1 and 0.2; y's comes from x1, x2 and z,
// sqrt((0.01 + 0.04 + 0.0025) / 3) = 0.132, which does not hold 0.9; z's from x1, x2 and y,
// sqrt((0.01 + 0.04 + 0.81) / 3) = 0.535, which holds 0.05. Three of four; median band
// (0.132, 0.535, 0.637, 0.637: the upper middle) 0.637.
TEST(PredictionBand, CoverageTakesEachRowsBandFromTheOtherModels) {
  std::vector<MeasuredLayout> measured = {
      row("x", false, "H100", 8, 1, 1, 100), row("x", false, "H100", 16, 1, 1, 90),
      row("y", false, "H100", 8, 2, 1, 80), row("z", true, "B200", 64, 1, 8, 50)};
  SpeedCalibration c;
  for (double e : {0.1, -0.2, 0.9, 0.05}) {
    CalibrationRow r;
    r.leave_one_out_error = e;
    c.rows.push_back(r);
  }
  BandCoverage coverage = band_coverage(c, measured);
  EXPECT_EQ(coverage.rows, 4);
  EXPECT_EQ(coverage.within, 3);
  EXPECT_NEAR(coverage.median_band, std::sqrt((0.81 + 0.0025) / 2), 1e-12);
  // Calibration rows that are not the measured ones' give nothing.
  c.rows.pop_back();
  EXPECT_EQ(band_coverage(c, measured).rows, 0);
}

TEST(PredictionBand, BestMeasuredOfThePair) {
  std::vector<MeasuredLayout> measured = {row("x", false, "H100", 8, 1, 1, 100),
                                          row("x", false, "H100", 16, 1, 1, 120),
                                          row("x", false, "B200", 8, 1, 1, 300)};
  PlanWorkload bf16;
  EXPECT_EQ(best_measured(measured, "x", "H100", bf16), &measured[1]);
  EXPECT_EQ(best_measured(measured, "x", "GB200", bf16), nullptr);
  // Another precision or sequence length is not the same workload.
  PlanWorkload fp8 = bf16;
  fp8.precision = Precision::kFp8;
  EXPECT_EQ(best_measured(measured, "x", "H100", fp8), nullptr);
  PlanWorkload long_rows = bf16;
  long_rows.row_tokens = 4096;
  EXPECT_EQ(best_measured(measured, "x", "H100", long_rows), nullptr);
}

}  // namespace
}  // namespace openrecipes
