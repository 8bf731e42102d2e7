#include "site/pair_predictions_cache.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

SitePredictions two_pairs() {
  SuggestedLayout s{
      "TP1 PP2 EP4 DP2 MBS1", "selective", 1234.5678901234567,          0.1 + 0.2, true, 71.25,
      0.3333333333333333,     1.0 / 3,     "--model m --gpu g --gpus 8"};
  SuggestedLayout t = s;
  t.unlike_measured = false;
  t.layout = "TP2 PP1 DP4 MBS1";
  PairPrediction fitted{"Model A", "H100", 16, {s, t}, ""};
  PairPrediction none{"Model A", "B200", 0, {}, "no layout is predicted to fit"};
  return {{fitted, none}, 0.208, 130};
}

void expect_same(const SitePredictions& a, const SitePredictions& b) {
  EXPECT_EQ(site_predictions_to_json(a).dump(), site_predictions_to_json(b).dump());
}

TEST(PairPredictionsCache, EveryFieldIsReadBackExactly) {
  SitePredictions p = two_pairs();
  std::optional<SitePredictions> read =
      site_predictions_from_json(nlohmann::json::parse(site_predictions_to_json(p).dump()));
  ASSERT_TRUE(read);
  ASSERT_EQ(read->pairs.size(), 2u);
  EXPECT_EQ(read->mape, 0.208);
  EXPECT_EQ(read->calibrated_rows, 130u);
  const PairPrediction& a = read->pairs[0];
  EXPECT_EQ(a.model, "Model A");
  EXPECT_EQ(a.gpu_type, "H100");
  EXPECT_EQ(a.gpus, 16);
  ASSERT_EQ(a.layouts.size(), 2u);
  const SuggestedLayout& s = a.layouts[0];
  EXPECT_EQ(s.layout, "TP1 PP2 EP4 DP2 MBS1");
  EXPECT_EQ(s.recompute, "selective");
  EXPECT_EQ(s.tokens_per_s_per_gpu, 1234.5678901234567);
  EXPECT_EQ(s.band, 0.1 + 0.2);
  EXPECT_TRUE(s.unlike_measured);
  EXPECT_FALSE(a.layouts[1].unlike_measured);
  EXPECT_EQ(s.memory_gb, 71.25);
  EXPECT_EQ(s.mfu, 0.3333333333333333);
  EXPECT_EQ(s.usd_per_million_tokens, 1.0 / 3);
  EXPECT_EQ(s.export_arguments, "--model m --gpu g --gpus 8");
  EXPECT_EQ(read->pairs[1].no_layout_reason, "no layout is predicted to fit");
  EXPECT_TRUE(read->pairs[1].layouts.empty());
}

TEST(PairPredictionsCache, AnythingElseIsRefused) {
  nlohmann::json good = site_predictions_to_json(two_pairs());
  ASSERT_TRUE(site_predictions_from_json(good));
  auto refused = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    return !site_predictions_from_json(j).has_value();
  };
  EXPECT_TRUE(refused([](nlohmann::json& j) { j.erase("mape"); }));
  EXPECT_TRUE(refused([](nlohmann::json& j) { j["calibrated_rows"] = -1; }));
  EXPECT_TRUE(refused([](nlohmann::json& j) { j["pairs"] = nlohmann::json::object(); }));
  EXPECT_TRUE(refused([](nlohmann::json& j) { j["pairs"][0]["gpus"] = 1.5; }));
  EXPECT_TRUE(refused([](nlohmann::json& j) { j["pairs"][0]["gpus"] = 1e12; }));
  EXPECT_TRUE(refused([](nlohmann::json& j) { j["pairs"][1].erase("no_layout_reason"); }));
  EXPECT_TRUE(refused([](nlohmann::json& j) { j["pairs"][0]["layouts"][1]["mfu"] = "0.3"; }));
  EXPECT_TRUE(
      refused([](nlohmann::json& j) { j["pairs"][0]["layouts"][0]["unlike_measured"] = 1; }));
  EXPECT_TRUE(refused([](nlohmann::json& j) { j["pairs"][0]["layouts"][0] = 7; }));
  EXPECT_TRUE(refused([](nlohmann::json& j) { j = "text"; }));
}

TEST(PairPredictionsCache, AStoredEntryIsWhatTheBuildShows) {
  CatalogCheck check = check_catalog(testing::source_dir(), {}, testing::source_dir());
  ResultCache cache(testing::fresh_dir("pair_predictions_cache"));
  const std::string key(64, 'e');
  ASSERT_TRUE(cache.write(key, site_predictions_to_json(two_pairs())));
  expect_same(predict_unmeasured_pairs_cached(check, &cache, key), two_pairs());
}

}  // namespace
}  // namespace openrecipes
