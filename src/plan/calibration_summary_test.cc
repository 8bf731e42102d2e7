#include "plan/calibration_summary.h"

#include <gtest/gtest.h>

#include <cmath>

#include "plan/calibration_report.h"

namespace openrecipes {
namespace {

TEST(CalibrationSummary, SpearmanByHand) {
  EXPECT_DOUBLE_EQ(spearman_rho({1, 2, 3}, {10, 20, 30}), 1);
  EXPECT_DOUBLE_EQ(spearman_rho({1, 2, 3}, {30, 20, 10}), -1);
  // Ranks (1, 2, 3) against (1, 3, 2): 1 - 6 x 2 / (3 x 8) = 0.5.
  EXPECT_DOUBLE_EQ(spearman_rho({1, 2, 3}, {5, 9, 7}), 0.5);
  // A tie gets its mean rank; no spread leaves it undefined, not 0 ("no agreement").
  EXPECT_NEAR(spearman_rho({1, 1, 2}, {1, 2, 3}), 0.8660254037844386, 1e-12);
  EXPECT_TRUE(std::isnan(spearman_rho({4, 4}, {1, 2})));
  EXPECT_TRUE(std::isnan(spearman_rho({1, 2}, {7, 7})));
}

CalibrationRow row(std::string model, bool moe, std::string gpu, double measured, double loo) {
  CalibrationRow r;
  r.name = model;
  r.model = model;
  r.group_key = model + " / " + gpu + " / 8";
  r.moe = moe;
  r.gpu_type = gpu;
  r.precision = "bf16";
  r.measured_tokens_per_s_per_gpu = measured;
  r.leave_one_out_tokens_per_s_per_gpu = loo;
  r.leave_one_out_error = (loo - measured) / measured;
  return r;
}

TEST(CalibrationSummary, GroupErrorsAndRanks) {
  SpeedCalibration c;
  c.rows = {row("a", false, "H100", 100, 110), row("a", false, "H100", 200, 180),
            row("b", true, "B200", 100, 70)};
  summarize_calibration(c);
  EXPECT_NEAR(c.mape, (0.1 + 0.1 + 0.3) / 3, 1e-12);
  ASSERT_GE(c.groups.size(), 4u);
  EXPECT_EQ(c.groups[0].group, "dense");
  EXPECT_NEAR(c.groups[0].mape, 0.1, 1e-12);
  EXPECT_EQ(c.groups[1].group, "MoE");
  EXPECT_NEAR(c.groups[1].mape, 0.3, 1e-12);
  ASSERT_EQ(c.ranks.size(), 1u);  // only model a has two rows
  EXPECT_EQ(c.ranks[0].rows, 2);
  EXPECT_DOUBLE_EQ(c.ranks[0].spearman, 1);
}

// A group whose predictions all tie has no rank agreement to report: "n/a" and null, not +0.00.
TEST(CalibrationSummary, AnUndefinedRankAgreementIsReportedAsSuch) {
  SpeedCalibration c;
  c.rows = {row("a", false, "H100", 100, 150), row("a", false, "H100", 200, 150),
            row("b", false, "H100", 100, 90), row("b", false, "H100", 200, 220)};
  summarize_calibration(c);
  ASSERT_EQ(c.ranks.size(), 2u);
  EXPECT_TRUE(std::isnan(c.ranks[0].spearman));
  EXPECT_DOUBLE_EQ(c.ranks[1].spearman, 1);
  std::string text = calibration_text(c);
  EXPECT_NE(text.find("a / H100 / 8"), std::string::npos) << text;
  EXPECT_NE(text.find("n/a"), std::string::npos) << text;
  EXPECT_NE(text.find("+1.00"), std::string::npos) << text;
  nlohmann::json json = calibration_to_json(c);
  EXPECT_TRUE(json["ranks"][0]["spearman"].is_null()) << json["ranks"];
  EXPECT_EQ(json["ranks"][1]["spearman"], 1.0);
}

// The bands' coverage is reported beside the errors, in text and JSON; without it (no refits)
// the text says nothing of it.
TEST(CalibrationSummary, ReportsTheBandsCoverage) {
  SpeedCalibration c;
  c.rows = {row("a", false, "H100", 100, 110), row("b", false, "H100", 100, 90)};
  summarize_calibration(c);
  EXPECT_EQ(calibration_text(c).find("error bands"), std::string::npos);
  c.band_coverage = {202, 139, 0.13};
  std::string text = calibration_text(c);
  EXPECT_NE(text.find("error bands: 139 of 202 rows (69%)"), std::string::npos) << text;
  EXPECT_NE(text.find("(median band ±13%)"), std::string::npos) << text;
  nlohmann::json json = calibration_to_json(c);
  EXPECT_EQ(json["band_coverage"]["rows"], 202);
  EXPECT_EQ(json["band_coverage"]["within"], 139);
  EXPECT_DOUBLE_EQ(json["band_coverage"]["median_band"].get<double>(), 0.13);
}

}  // namespace
}  // namespace openrecipes
