// The speed model's fits kept in the result cache: read back, they give the calibration a fresh
// fit gives, to the bit; anything else is refitted.
#include <gtest/gtest.h>

#include "plan/speed_calibration.h"
#include "test_support.h"

namespace openrecipes {
namespace {

void expect_same(const SpeedCalibration& a, const SpeedCalibration& b) {
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].fitted_tokens_per_s_per_gpu, b.rows[i].fitted_tokens_per_s_per_gpu);
    EXPECT_EQ(a.rows[i].leave_one_out_tokens_per_s_per_gpu,
              b.rows[i].leave_one_out_tokens_per_s_per_gpu);
  }
  ASSERT_EQ(a.fitted.size(), b.fitted.size());
  for (std::size_t i = 0; i < a.fitted.size(); ++i) {
    EXPECT_EQ(a.fitted[i].value, b.fitted[i].value) << a.fitted[i].name;
    EXPECT_EQ(a.fitted[i].at_bound, b.fitted[i].at_bound) << a.fitted[i].name;
  }
  EXPECT_EQ(a.mape, b.mape);
  EXPECT_EQ(a.models, b.models);
}

TEST(SpeedFitsCache, FitsReadBackGiveTheSameCalibration) {
  std::vector<MeasuredLayout> measured = testing::bundled_recipe_measurements();
  SpeedCalibration fresh = calibrate_speed_model(measured);
  SpeedFits fits = fit_speed_parameters(measured);
  ASSERT_EQ(fits.held_out.size(), 2u);
  nlohmann::json stored = nlohmann::json::parse(speed_fits_to_json(fits).dump());
  std::optional<SpeedFits> read = speed_fits_from_json(stored, measured, {}, true);
  ASSERT_TRUE(read);
  expect_same(calibration_from_fits(measured, {}, *read), fresh);

  SpeedCalibration without = calibrate_speed_model(measured, {}, false);
  std::optional<SpeedFits> no_refits = speed_fits_from_json(
      speed_fits_to_json(fit_speed_parameters(measured, {}, false)), measured, {}, false);
  ASSERT_TRUE(no_refits);
  EXPECT_TRUE(no_refits->held_out.empty());
  expect_same(calibration_from_fits(measured, {}, *no_refits), without);
  EXPECT_FALSE(speed_fits_from_json(stored, measured, {}, false)) << "refits where none belong";
}

TEST(SpeedFitsCache, FitsForOtherRowsOrParametersAreRefused) {
  std::vector<MeasuredLayout> measured = testing::bundled_recipe_measurements();
  nlohmann::json good = speed_fits_to_json(fit_speed_parameters(measured));
  ASSERT_TRUE(speed_fits_from_json(good, measured, {}, true));

  std::vector<MeasuredLayout> one_model;
  for (const MeasuredLayout& m : measured)
    if (m.model.name == measured[0].model.name) one_model.push_back(m);
  EXPECT_FALSE(speed_fits_from_json(good, one_model, {}, true)) << "another model set";

  nlohmann::json bad = good;
  bad["all"]["gemm_efficiency"] = 2.0;  // above its bound of 0.9
  EXPECT_FALSE(speed_fits_from_json(bad, measured, {}, true));
  bad = good;
  bad["all"].erase("kernel_overhead_s");
  EXPECT_FALSE(speed_fits_from_json(bad, measured, {}, true));
  bad = good;
  bad["all"]["no_such_parameter"] = 1;
  EXPECT_FALSE(speed_fits_from_json(bad, measured, {}, true));
  bad = good;
  bad["held_out"][0]["parameters"]["hbm_efficiency"] = "0.8";
  EXPECT_FALSE(speed_fits_from_json(bad, measured, {}, true));
  EXPECT_FALSE(speed_fits_from_json(nlohmann::json::array(), measured, {}, true));
}

TEST(SpeedFitsCache, TheCachedCalibrationReadsWhatIsStoredAndStoresWhatItFits) {
  std::vector<MeasuredLayout> measured = testing::bundled_recipe_measurements();
  ResultCache cache(testing::fresh_dir("speed_fits_cache"));
  const std::string key(64, 'f');
  SpeedCalibration first = calibrate_speed_model_cached(measured, true, &cache, key);
  expect_same(first, calibrate_speed_model(measured));
  std::optional<nlohmann::json> stored = cache.read(key);
  ASSERT_TRUE(stored) << "a miss stores its fits";

  // What is stored is what is used: a valid entry with another value shows in the result.
  SpeedFits other = *speed_fits_from_json(*stored, measured, {}, true);
  other.all.gemm_efficiency = 0.65;
  ASSERT_TRUE(cache.write(key, speed_fits_to_json(other)));
  EXPECT_EQ(calibrate_speed_model_cached(measured, true, &cache, key).parameters.gemm_efficiency,
            0.65);

  // An entry that is not fits for these rows is refitted and replaced.
  ASSERT_TRUE(cache.write(key, {{"all", 1}}));
  expect_same(calibrate_speed_model_cached(measured, true, &cache, key), first);
  EXPECT_TRUE(speed_fits_from_json(*cache.read(key), measured, {}, true));

  expect_same(calibrate_speed_model_cached(measured, true, nullptr, ""), first);
}

}  // namespace
}  // namespace openrecipes
