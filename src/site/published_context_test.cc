// The "Published elsewhere" section, from the bundled dataset.
#include "site/published_context.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "validate/recipe_validator.h"

namespace openrecipes {
namespace {

TEST(PublishedContext, ListsEveryRowOfTheModelOnTheGpuTypeNewestReleaseFirstWithItsLine) {
  const CatalogCheck& check = testing::bundled_catalog_check();
  ASSERT_TRUE(check.measurements) << testing::describe(check.problems);
  const Catalog& catalog = check.loaded->catalog;
  const Model& model = *catalog.find_model("Llama-3-70B");
  const Gpu& gpu = *catalog.find_gpu("H100");
  std::size_t expected = 0;
  const PublishedMeasurement* newest = nullptr;
  for (const PublishedMeasurement& row : check.measurements->rows) {
    if (row.model != "llama3-70b" || row.gpu != "H100") continue;
    ++expected;
    if (!newest || row.release > newest->release) newest = &row;  // "26.06" > "26.04.01" > ...
  }
  ASSERT_GT(expected, 2u);
  nlohmann::json section = published_context(&*check.measurements, model, gpu);
  EXPECT_TRUE(section["has_published"]);
  ASSERT_EQ(section["published"].size(), expected);
  const nlohmann::json& first = section["published"][0];
  EXPECT_EQ(first["release"], newest->release);
  for (std::size_t i = 1; i < expected; ++i) {
    EXPECT_GE(std::string(section["published"][i - 1]["release"]),
              std::string(section["published"][i]["release"]));
  }
  // Mustache takes "" as true, so empty variants and notes carry their own flags.
  for (const nlohmann::json& row : section["published"]) {
    EXPECT_EQ(row["has_variant"], !row["variant"].get<std::string>().empty());
    EXPECT_EQ(row["has_note"], !row["note"].get<std::string>().empty());
  }
  // The citation opens the table's own line at the transcribed commit.
  std::string href = section["published"].back()["cite_href"];
  std::string prefix(kPublishedTablesRepository);
  prefix.append("/blob/067f987df03b8355b03192d88d70f1709fedf51a/docs/");
  EXPECT_TRUE(href.starts_with(prefix)) << href;
  EXPECT_NE(href.find("#L"), std::string::npos) << href;
}

TEST(PublishedContext, IsEmptyForAModelTheTablesDoNotMeasureAndWithoutADataset) {
  const CatalogCheck& check = testing::bundled_catalog_check();
  const Catalog& catalog = check.loaded->catalog;
  const Model& gpt_oss = *catalog.find_model("gpt-oss-20b");
  nlohmann::json none = published_context(&*check.measurements, gpt_oss, *catalog.find_gpu("H200"));
  EXPECT_FALSE(none["has_published"]);
  EXPECT_TRUE(none["published"].empty());
  nlohmann::json no_dataset =
      published_context(nullptr, *catalog.find_model("Llama-3-70B"), *catalog.find_gpu("H100"));
  EXPECT_FALSE(no_dataset["has_published"]);
}

}  // namespace
}  // namespace openrecipes
