// The page models of the bundled catalog, against what the committed site shows.
#include "site/page_model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace openrecipes {
namespace {

nlohmann::json qwen_on_h200() {
  const Catalog& catalog = testing::bundled_catalog_check().loaded->catalog;
  return pair_page(catalog, RecipeRanks(testing::bundled_catalog_check().recipes),
                   *catalog.find_model("Qwen3.5-122B-A10B"), *catalog.find_gpu("H200"),
                   {"https://example.org/repo", "main"});
}

TEST(PairPage, RanksTheThreeSeedRecipes) {
  ASSERT_TRUE(testing::bundled_catalog_check().problems.empty())
      << testing::describe(testing::bundled_catalog_check().problems);
  nlohmann::json page = qwen_on_h200();
  EXPECT_EQ(page["title"], "Training Qwen3.5-122B-A10B on H200");
  ASSERT_EQ(page["recipes"].size(), 3u);
  std::vector<std::string> order, scores, costs, mfu, cv;
  for (const auto& card : page["recipes"]) {
    order.push_back(card["stem"]);
    scores.push_back(card["tokens_per_s_short"]);
    costs.push_back(card["usd_per_million"]);
    mfu.push_back(card["mfu"].get<std::string>().substr(0, 5));
    cv.push_back(card["cv"]);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"attune-tp1-pp4-ep8-rc2", "attune-tp1-pp4-ep8",
                                             "attune-tp1-pp4-ep8-flex"}));
  EXPECT_EQ(scores, (std::vector<std::string>{"2,451.4", "2,366.7", "2,289.7"}));
  EXPECT_EQ(costs, (std::vector<std::string>{"$0.90", "$0.93", "$0.96"}));
  EXPECT_EQ(mfu, (std::vector<std::string>{"13.4%", "12.9%", "12.5%"}));
  EXPECT_EQ(cv, (std::vector<std::string>{"0.57%", "0.61%", "0.66%"}));
}

TEST(PairPage, CardsCarrySeed003Lines) {
  nlohmann::json page = qwen_on_h200();
  const auto& first = page["recipes"][0];
  EXPECT_EQ(first["gpus_line"], "32 x H200 141 GB (AWS p5en.48xlarge, 8 per node)");
  EXPECT_EQ(first["mfu"], "13.4% (N = 9,008,136,192 active parameters per token)");
  EXPECT_EQ(
      first["convergence"],
      "correlation 0.999997, final loss difference 0.00042, 0 pointwise failures over 20 steps");
  EXPECT_EQ(first["measured_line"], "2026-10-13");
  EXPECT_EQ(first["gpu_hours"], "8.96");
  EXPECT_EQ(first["stack"][1]["name"], "megatron lm");
  EXPECT_EQ(first["repository_href"],
            "https://example.org/repo/blob/main/recipes/qwen3.5-122b-a10b/h200/"
            "attune-tp1-pp4-ep8-rc2.yaml");
  EXPECT_EQ(first["file_text"], testing::read_source_file(first["file_path"]));
  const auto& second = page["recipes"][1];
  EXPECT_EQ(second["measured_line"], "2026-10-11, 14-step run scored over steps 4–13");
  EXPECT_EQ(second["gpu_hours"], "8.2");
  EXPECT_EQ(page["recipes"][2]["gpu_hours"], "9.0");
  EXPECT_EQ(page["recipes"][2]["component_tests"].size(), 1u);
  ASSERT_EQ(page["citations"].size(), 1u);
  EXPECT_EQ(page["citations"][0]["author"], "ATTUNE");
}

TEST(RecipePage, IsThePermalinkOfTheRecipeFileWithItsFullCard) {
  const Catalog& catalog = testing::bundled_catalog_check().loaded->catalog;
  std::vector<const CatalogRecipe*> ranked =
      rank_recipes(testing::bundled_catalog_check().recipes, "Qwen3.5-122B-A10B", "H200");
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(recipe_page_path(*ranked[1]), "qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8.html");
  nlohmann::json page =
      recipe_page(catalog, *ranked[1], 2, ranked.size(), *catalog.find_model("Qwen3.5-122B-A10B"),
                  *catalog.find_gpu("H200"), {"https://example.org/repo", "main"});
  EXPECT_EQ(page["root"], "../../");  // beside the pair page: model and GPU folders down
  EXPECT_EQ(page["pair_href"], "index.html");
  EXPECT_EQ(page["title"], "attune-tp1-pp4-ep8: Qwen3.5-122B-A10B on H200");
  EXPECT_EQ(page["ranked"], 3);
  EXPECT_EQ(page["recipe"]["rank"], 2);
  EXPECT_EQ(page["recipe"]["file_text"], ranked[1]->text);
  EXPECT_EQ(page["recipe"]["measured_line"], "2026-10-11, 14-step run scored over steps 4–13");
  ASSERT_EQ(page["citations"].size(), 1u);
  EXPECT_EQ(page["citations"][0]["author"], "ATTUNE");
  // and the pair page's short card links to it
  EXPECT_EQ(qwen_on_h200()["recipes"][1]["page_href"], "attune-tp1-pp4-ep8.html");
}

TEST(RecipePage, DrawsTheStepTimesAndLossesOnlyWhereTheRecipeStatesThem) {
  const Catalog& catalog = testing::bundled_catalog_check().loaded->catalog;
  std::vector<const CatalogRecipe*> ranked =
      rank_recipes(testing::bundled_catalog_check().recipes, "Qwen3.5-122B-A10B", "H200");
  ASSERT_EQ(ranked.size(), 3u);
  const Model& model = *catalog.find_model("Qwen3.5-122B-A10B");
  const Gpu& gpu = *catalog.find_gpu("H200");
  // The bundled recipes state neither: no chart, no empty section.
  nlohmann::json page = recipe_page(catalog, *ranked[0], 1, 3, model, gpu, {"u", "main"});
  EXPECT_FALSE(page["has_charts"]);
  EXPECT_TRUE(page["step_time_chart"].is_null());
  EXPECT_TRUE(page["loss_chart"].is_null());

  CatalogRecipe with_times = *ranked[0];
  with_times.recipe.result.step_times_s.assign(20, 14.0);
  page = recipe_page(catalog, with_times, 1, 3, model, gpu, {"u", "main"});
  EXPECT_TRUE(page["has_charts"]);
  EXPECT_EQ(page["step_time_chart"]["table"]["rows"].size(), 20u);
  EXPECT_TRUE(page["loss_chart"].is_null());
}

TEST(PairPage, BarsFollowTheRankedTable) {
  nlohmann::json page = qwen_on_h200();
  const auto& bars = page["tokens_chart"]["bars"];
  ASSERT_EQ(bars.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(bars[i]["text"], page["recipes"][i]["tokens_per_s_short"]);
    EXPECT_EQ(page["usd_chart"]["bars"][i]["text"], page["recipes"][i]["usd_per_million"]);
    EXPECT_EQ(bars[i]["label"],
              fmt::format("#{} {}", i + 1, page["recipes"][i]["stem"].get<std::string>()));
  }
}

// The ranking looked up per pair is the ranking rank_recipes computes, ties and all.
TEST(RecipeRanks, AreRankRecipesForEveryPair) {
  const Catalog& catalog = testing::bundled_catalog_check().loaded->catalog;
  const std::vector<CatalogRecipe>& bundled = testing::bundled_catalog_check().recipes;
  ASSERT_EQ(bundled.size(), 4u);
  std::vector<CatalogRecipe> recipes = bundled;
  for (int i = 0; i < 40; ++i) {
    CatalogRecipe copy = bundled[static_cast<std::size_t>(i) % bundled.size()];
    copy.catalog_path = fmt::format("recipes/x/y/copy-{:02}.yaml", 40 - i);  // paths break ties
    copy.recipe.result.tokens_per_s_per_gpu = 1000 + i % 3;                  // many ties
    if (i % 4 == 0) copy.recipe.result.measured = "2026-01-0" + std::to_string(i % 9 + 1);
    if (i % 7 == 0) copy.recipe.status = "unverified";
    recipes.push_back(std::move(copy));
  }
  RecipeRanks ranks(recipes);
  std::size_t compared = 0;
  for (const Model& model : catalog.models) {
    for (const Gpu& gpu : catalog.gpus) {
      EXPECT_EQ(ranks.of(model.name, gpu.type), rank_recipes(recipes, model.name, gpu.type))
          << model.name << " on " << gpu.type;
      compared += ranks.of(model.name, gpu.type).size();
    }
  }
  EXPECT_EQ(compared, 4u + 40u - 6u) << "every verified recipe, once; the 6 unverified copies not";
  EXPECT_TRUE(ranks.of("no such model", "H200").empty());
}

TEST(PairPage, ALargePairIsSplitIntoPagesOfAHundredRanks) {
  const Catalog& catalog = testing::bundled_catalog_check().loaded->catalog;
  std::vector<CatalogRecipe> recipes;
  const CatalogRecipe* base =
      rank_recipes(testing::bundled_catalog_check().recipes, "gpt-oss-20b", "H200").at(0);
  for (int i = 0; i < 250; ++i) {
    CatalogRecipe copy = *base;
    copy.catalog_path = fmt::format("recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4-c{:03}.yaml", i);
    copy.recipe.result.tokens_per_s_per_gpu += i;  // c249 ranks first
    recipes.push_back(std::move(copy));
  }
  const Model& model = *catalog.find_model("gpt-oss-20b");
  const Gpu& gpu = *catalog.find_gpu("H200");
  EXPECT_EQ(pair_page_count(250), 3u);
  EXPECT_EQ(pair_page_count(0), 1u);
  EXPECT_EQ(pair_page_path(model, gpu, 1), "gpt-oss-20b/h200/index.html");
  EXPECT_EQ(pair_page_path(model, gpu, 3), "gpt-oss-20b/h200/page-3.html");
  nlohmann::json first =
      pair_page(catalog, RecipeRanks(recipes), model, gpu, {"https://example.org/r", "main"});
  nlohmann::json third =
      pair_page(catalog, RecipeRanks(recipes), model, gpu, {"https://example.org/r", "main"}, 3);
  EXPECT_TRUE(first["paged"].get<bool>());
  ASSERT_EQ(first["recipes"].size(), 100u);
  EXPECT_EQ(first["recipes"][0]["stem"], "attune-tp1-pp2-ep4-c249");
  ASSERT_EQ(third["recipes"].size(), 50u);
  EXPECT_EQ(third["recipes"][0]["rank"], 201);
  EXPECT_EQ(third["recipes"][49]["stem"], "attune-tp1-pp2-ep4-c000");
  EXPECT_EQ(third["title"], "Training gpt-oss-20b on H200, ranks 201–250");
  ASSERT_EQ(third["page_links"].size(), 3u);
  EXPECT_EQ(third["page_links"][0]["href"], "index.html");
  EXPECT_EQ(third["page_links"][1]["href"], "page-2.html");
  EXPECT_TRUE(third["page_links"][2]["current"].get<bool>());
  EXPECT_FALSE(qwen_on_h200()["paged"].get<bool>());  // three recipes: one page
  // A recipe's page leads back to the pair page that holds its row.
  std::vector<const CatalogRecipe*> ranked = rank_recipes(recipes, "gpt-oss-20b", "H200");
  EXPECT_EQ(recipe_page(catalog, *ranked[150], 151, 250, model, gpu, {})["pair_href"],
            "page-2.html");
  EXPECT_EQ(recipe_page(catalog, *ranked[99], 100, 250, model, gpu, {})["pair_href"], "index.html");
}

TEST(SearchIndex, ListsEveryRankedRecipeWithItsPagesAndPlainNumbers) {
  const Catalog& catalog = testing::bundled_catalog_check().loaded->catalog;
  nlohmann::json index =
      search_index(catalog, RecipeRanks(testing::bundled_catalog_check().recipes));
  ASSERT_EQ(index["recipes"].size(), 4u);
  const nlohmann::json& first = index["recipes"][0];  // gpt-oss-20b is the first model
  EXPECT_EQ(first["model"], "gpt-oss-20b");
  EXPECT_EQ(first["gpu"], "H200");
  EXPECT_EQ(first["rank"], 1);
  EXPECT_DOUBLE_EQ(first["tokens_per_s_per_gpu"].get<double>(), 9448.16);
  EXPECT_EQ(first["page"], "gpt-oss-20b/h200/attune-tp1-pp2-ep4.html");
  EXPECT_EQ(first["yaml"], "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml");
  EXPECT_EQ(index["recipes"][3]["recipe"], "attune-tp1-pp4-ep8-flex");
  EXPECT_EQ(index["recipes"][3]["rank"], 3);
}

TEST(PairPage, OnlyTheFourteenStepRecipeCarriesAProtocolDeviation) {
  nlohmann::json page = qwen_on_h200();
  std::vector<bool> deviates;
  for (const auto& card : page["recipes"]) deviates.push_back(card["has_deviation"]);
  EXPECT_EQ(deviates, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(page["recipes"][1]["protocol_deviation"],
            "14 steps scored over steps 4-13 (10 steps), not the protocol's 20 steps scored over "
            "5-19");
}

TEST(PairPage, TilesListOnlyGpuTypesWithRecipes) {
  nlohmann::json page = qwen_on_h200();
  ASSERT_EQ(page["tiles"].size(), 1u);  // the bundled catalog has Qwen recipes on H200 only
  EXPECT_TRUE(page["tiles"][0]["current"].get<bool>());
  EXPECT_FALSE(page["has_other_gpus"].get<bool>());
  // The five other GPU types link their "Not measured yet" pages.
  ASSERT_EQ(page["unmeasured_gpus"].size(), 5u);
  EXPECT_EQ(page["unmeasured_gpus"][0]["gpu"], "H100");
  EXPECT_EQ(page["unmeasured_gpus"][0]["href"], "../../qwen3.5-122b-a10b/h100/index.html");
}

TEST(IndexPage, GroupsByFamilyWithBestPerGpu) {
  const CatalogCheck& check = testing::bundled_catalog_check();
  nlohmann::json page = index_page(check.loaded->catalog, RecipeRanks(check.recipes));
  std::vector<std::string> families;
  for (const auto& family : page["families"]) families.push_back(family["family"]);
  // Case-insensitive order; Llama, DeepSeek and Nemotron are models of the published runs.
  EXPECT_EQ(families,
            (std::vector<std::string>{"DeepSeek", "gpt-oss", "Llama", "Nemotron", "Qwen"}));
  const auto& qwen = page["families"][4]["models"];
  ASSERT_EQ(qwen.size(), 2u);
  EXPECT_EQ(qwen[1]["name"], "Qwen3.5-122B-A10B");
  const auto& cells = qwen[1]["cells"];
  ASSERT_EQ(cells.size(), 6u);  // H100, H200, B200, B300, GB200, GB300
  // A pair without a recipe links its "Not measured yet" page and states no figure.
  EXPECT_FALSE(cells[0]["has_recipe"].get<bool>());
  EXPECT_EQ(cells[0]["href"], "qwen3.5-122b-a10b/h100/index.html");
  EXPECT_FALSE(cells[0].contains("tokens_per_s"));
  EXPECT_EQ(cells[1]["tokens_per_s"], "2,451.4");
  EXPECT_EQ(cells[1]["href"], "qwen3.5-122b-a10b/h200/index.html");
}

TEST(FieldsPage, ListsEveryFieldInFileOrderWithRules) {
  nlohmann::json page =
      fields_page(testing::bundled_catalog_check().loaded->recipe_schema.ordered_json());
  ASSERT_GT(page["fields"].size(), 80u);
  EXPECT_EQ(page["fields"][0]["path"], "schema_version");
  EXPECT_EQ(page["fields"][0]["type"], "always 1");
  bool found = false;
  for (const auto& row : page["fields"]) {
    if (row["path"] == "correctness.component_tests[].detail") found = true;
    EXPECT_FALSE(row["description"].get<std::string>().empty()) << row["path"];
  }
  EXPECT_TRUE(found);
  EXPECT_GT(page["rules"].size(), 15u);
}

TEST(NoteBlocks, SplitsParagraphsAndLists) {
  nlohmann::json blocks = note_blocks("One line\ncontinues.\n\n- a\n- b\n\nLast.");
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0]["text"], "One line continues.");
  EXPECT_TRUE(blocks[1]["is_list"].get<bool>());
  EXPECT_EQ(blocks[1]["items"][1]["item"], "b");
  EXPECT_EQ(blocks[2]["text"], "Last.");
  EXPECT_TRUE(note_blocks("").empty());
}

}  // namespace
}  // namespace openrecipes
