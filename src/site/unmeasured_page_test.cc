// The "Not measured yet" page model from hand-made predictions.
#include "site/unmeasured_page.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

TEST(UnmeasuredPage, ShowsEachSuggestionAsAPredictionWithItsBandAndCommands) {
  const Catalog& catalog = testing::bundled_catalog().catalog;
  const Model& model = *catalog.find_model("Llama-3-8B");
  const Gpu& gpu = *catalog.find_gpu("H100");
  PairPrediction prediction{model.name, gpu.type, 8, {}, ""};
  prediction.layouts.push_back({"TP1 PP1 CP4 DP2 MBS1", "none", 7546.4, 0.123, true, 70.94, 0.344,
                                0.25, "--model llama3-8b --gpu H100 --gpus 8 --layout \"TP1\""});
  prediction.layouts.push_back(
      {"TP2 PP1 DP4 MBS1", "selective", 7001, 0.2, false, 60, 0.3, 0, "x"});
  SitePredictions predictions{{prediction}, 0.208, 202};
  nlohmann::json page = unmeasured_page(model, gpu, &prediction, predictions, nullptr);
  EXPECT_FALSE(page["has_dispatcher"]);  // a dense model's layouts have none
  EXPECT_EQ(page["title"], "Llama-3-8B on H100: not measured yet");
  EXPECT_EQ(page["root"], "../../");
  EXPECT_TRUE(page["has_prediction"]);
  EXPECT_EQ(page["gpus"], 8);
  EXPECT_EQ(page["mape"], "20.8%");
  ASSERT_EQ(page["suggestions"].size(), 2u);
  const nlohmann::json& first = page["suggestions"][0];
  EXPECT_EQ(first["tokens_per_s"], "≈7,546");
  EXPECT_EQ(first["band"], "±12%");
  EXPECT_TRUE(first["unlike_measured"]);
  EXPECT_EQ(first["memory_gb"], "70.9");
  EXPECT_EQ(first["mfu"], "34.4%");
  EXPECT_EQ(first["usd_per_million"], "$0.25");
  EXPECT_EQ(first["export_command"],
            "openrecipes export --model llama3-8b --gpu H100 --gpus 8 --layout \"TP1\" --to "
            "megatron-lm -o llama3-8b-h100-suggestion-1.yaml");
  EXPECT_EQ(first["measure_command"],
            "openrecipes measure llama3-8b-h100-suggestion-1.yaml --slurm --partition PARTITION "
            "--rows ROWS.parquet");
  EXPECT_EQ(page["suggestions"][1]["usd_per_million"], "no rate");
  EXPECT_FALSE(page["has_published"]);
  // A MoE layout names its dispatcher, and the table gains the column.
  prediction.layouts[1].dispatcher = "flex (DeepEP)";
  page = unmeasured_page(model, gpu, &prediction, predictions, nullptr);
  EXPECT_TRUE(page["has_dispatcher"]);
  EXPECT_EQ(page["suggestions"][1]["dispatcher"], "flex (DeepEP)");
}

TEST(UnmeasuredPage, SaysWhyThereIsNoSuggestion) {
  const Catalog& catalog = testing::bundled_catalog().catalog;
  const Model& model = *catalog.find_model("DeepSeek-V3");
  const Gpu& gpu = *catalog.find_gpu("H100");
  PairPrediction none{model.name, gpu.type, 0, {}, "no layout is predicted to fit"};
  SitePredictions predictions{{none}, 0.2, 10};
  nlohmann::json page = unmeasured_page(model, gpu, &none, predictions, nullptr);
  EXPECT_FALSE(page["has_prediction"]);
  EXPECT_EQ(page["no_layout_reason"], "no layout is predicted to fit");
  EXPECT_FALSE(unmeasured_page(model, gpu, nullptr, predictions, nullptr)["has_prediction"]);
}

TEST(UnmeasuredPage, QuotesNoBandWhenNothingWasMeasured) {
  const Catalog& catalog = testing::bundled_catalog().catalog;
  const Model& model = *catalog.find_model("Llama-3-8B");
  const Gpu& gpu = *catalog.find_gpu("H100");
  PairPrediction prediction{model.name, gpu.type, 8, {}, ""};
  prediction.layouts.push_back({"TP1 PP1 DP8 MBS1", "none", 7000, 0, true, 70, 0.3, 0.25, "x"});
  SitePredictions uncalibrated{{prediction}, 0, 0};
  nlohmann::json page = unmeasured_page(model, gpu, &prediction, uncalibrated, nullptr);
  EXPECT_EQ(page["suggestions"][0]["band"], "none: nothing measured");
  EXPECT_FALSE(page["has_calibration"]);
}

}  // namespace
}  // namespace openrecipes
