// Recommendations from the bundled catalog: the best recipe when the pair is listed, the nearest
// otherwise, resized with every override classed by rules/arguments.yaml.
#include "plan/recommend.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "plan/catalog_measurements.h"
#include "plan/layout_prediction.h"
#include "test_support.h"

namespace openrecipes {
namespace {

struct Fixture {
  CatalogCheck checked = check_catalog(testing::source_dir(), {}, testing::source_dir());
  std::vector<RecipeCandidate> candidates;
  std::optional<ArgumentRules> rules;
  SpeedParameters speed;
  Fixture() {
    for (const CatalogRecipe& recipe : checked.recipes) {
      const Model* m = checked.loaded->catalog.find_model(recipe.recipe.model);
      candidates.push_back({&recipe, m->family, m->shape});
    }
    Problems problems;
    rules = load_argument_rules(testing::source_dir(), problems);
    speed = calibrate_speed_model(measured_layouts(checked.loaded->catalog, checked.recipes))
                .parameters;
  }
  RecommendRequest request(const std::string& model, const std::string& gpu, int gpus) const {
    const Catalog& c = checked.loaded->catalog;
    RecommendRequest r;
    r.model_name = model;
    r.family = c.find_model(model)->family;
    r.model = c.find_model(model)->shape;
    r.cluster = cluster_of(*c.find_gpu(gpu), gpus);
    return r;
  }
  Recommendation recommend(const RecommendRequest& r) const {
    Problems problems;
    std::optional<Recommendation> rec =
        recommend_recipe(r, candidates, *rules, speed, MemoryOptions{}, problems);
    EXPECT_TRUE(rec) << render_problems(problems, OutputFormat::kText);
    return rec.value_or(Recommendation{});
  }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

const SettingOverride* find(const Recommendation& rec, const std::string& setting) {
  for (const SettingOverride& o : rec.overrides) {
    if (o.setting == setting) return &o;
  }
  return nullptr;
}

TEST(Recommend, TheListedPairGetsItsBestRecipeUnchanged) {
  Recommendation rec = fixture().recommend(fixture().request("Qwen3.5-122B-A10B", "H200", 32));
  ASSERT_TRUE(rec.base);
  EXPECT_EQ(rec.base->catalog_path,
            "recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml");  // 2,451.44
  EXPECT_EQ(rec.match, RecipeMatch::kSameModelAndGpu);
  EXPECT_TRUE(rec.overrides.empty());
  EXPECT_FALSE(rec.resized_by_search);
  for (const ResizeCheck& c : rec.checks) EXPECT_TRUE(c.passed) << c.rule << ": " << c.detail;
}

// The recommendation runs its start's command, so its prediction assumes that command's run
// settings: the gpt-oss recipe reduces gradients in BF16 (--grad-reduce-in-bf16), which plan's
// table of measured layouts assumed (70.9 GB) and recommend did not (77.4 GB).
TEST(Recommend, PredictsWithTheStartsRunSettings) {
  const Fixture& f = fixture();
  Recommendation rec = f.recommend(f.request("gpt-oss-20b", "H200", 8));
  ASSERT_TRUE(rec.base);
  ASSERT_NE(rec.base->recipe.run.find("--grad-reduce-in-bf16"), std::string::npos);
  std::vector<MeasuredLayout> measured = measured_layouts(f.checked.loaded->catalog, {*rec.base});
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_FALSE(measured[0].workload.grad_reduce_in_fp32);
  LayoutPrediction as_measured =
      predict_layout(measured[0].model, measured[0].cluster, measured[0].workload, rec.layout,
                     f.speed, MemoryOptions{});
  EXPECT_DOUBLE_EQ(rec.prediction.memory.memory_bytes, as_measured.memory.memory_bytes);
  EXPECT_DOUBLE_EQ(rec.prediction.speed.tokens_per_s_per_gpu,
                   as_measured.speed.tokens_per_s_per_gpu);
  PlanWorkload fp32 = measured[0].workload;
  fp32.grad_reduce_in_fp32 = true;
  EXPECT_GT(predict_layout(measured[0].model, measured[0].cluster, fp32, rec.layout, f.speed,
                           MemoryOptions{})
                .memory.memory_bytes,
            rec.prediction.memory.memory_bytes);
}

TEST(Recommend, MoreGpusRaiseDataParallelOnlyAndThatIsExecution) {
  Recommendation rec = fixture().recommend(fixture().request("Qwen3.5-122B-A10B", "H200", 64));
  EXPECT_FALSE(rec.resized_by_search);
  EXPECT_EQ(rec.layout.dp, 16);
  EXPECT_EQ(rec.layout.label, "TP1 PP4 EP8 DP16");
  const SettingOverride* world = find(rec, "world_size");
  ASSERT_TRUE(world);
  EXPECT_EQ(world->from, "32");
  EXPECT_EQ(world->to, "64");
  for (const SettingOverride& o : rec.overrides)
    EXPECT_EQ(o.argument_class, "execution") << o.setting;
}

TEST(Recommend, FewerGpusThanTheExpertMeshNeedsTheSearchAndSaysWhatChanged) {
  // 4 GPUs cannot hold PP 2 x EP 4: the recipe's layout breaks mesh.expert_dp.
  Recommendation rec = fixture().recommend(fixture().request("gpt-oss-20b", "H200", 4));
  EXPECT_TRUE(rec.resized_by_search);
  EXPECT_NE(rec.layout_reason.find("breaks mesh.expert_dp"), std::string::npos)
      << rec.layout_reason;
  EXPECT_TRUE(rec.prediction.memory.fits);
  EXPECT_EQ(rec.layout.dp * rec.layout.tp * rec.layout.pp * rec.layout.cp, 4);
  for (const ResizeCheck& c : rec.checks) EXPECT_TRUE(c.passed) << c.rule << ": " << c.detail;
  ASSERT_TRUE(find(rec, "world_size"));
  EXPECT_GT(rec.overrides.size(), 1u);  // the sizes that changed are named
  for (const SettingOverride& o : rec.overrides) {
    EXPECT_TRUE(o.argument_class == "execution" || o.argument_class == "same_math_swap")
        << o.setting;
  }
}

// gpt-oss-20b on 2^20 H200s: every mesh leaves DP above the global batch of 128 (mesh.batch) or
// breaks another rule.
std::optional<Recommendation> no_legal_layout_request(Problems& problems) {
  return recommend_recipe(fixture().request("gpt-oss-20b", "H200", 1 << 20), fixture().candidates,
                          *fixture().rules, fixture().speed, MemoryOptions{}, problems);
}

TEST(Recommend, SaysSoWhenNoLayoutFits) {
  // Qwen3.5-122B-A10B's weights, FP32 gradients and optimizer state need more than 16 H200s.
  Problems problems;
  std::optional<Recommendation> rec =
      recommend_recipe(fixture().request("Qwen3.5-122B-A10B", "H200", 16), fixture().candidates,
                       *fixture().rules, fixture().speed, MemoryOptions{}, problems);
  EXPECT_FALSE(rec);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].rule, "recommend");
  EXPECT_NE(problems[0].message.find("fit in memory"), std::string::npos) << problems[0].message;
  // When no layout passes the rules at all, memory is not the reason given.
  problems.clear();
  rec = no_legal_layout_request(problems);
  EXPECT_FALSE(rec);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("passes the layout rules"), std::string::npos)
      << problems[0].message;
}

TEST(Recommend, AnotherGpuTypeStartsFromTheSameModel) {
  Recommendation rec = fixture().recommend(fixture().request("gpt-oss-20b", "H100", 8));
  EXPECT_EQ(rec.match, RecipeMatch::kSameModelOtherGpu);
  EXPECT_EQ(rec.base->recipe.model, "gpt-oss-20b");
  const SettingOverride* gpu = find(rec, "gpu_type");
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->to, "H100");
  EXPECT_TRUE(rec.prediction.memory.fits);  // on 80 GB, with recompute if it needs it
}

// A recipe of another model is only a start: its layout (Qwen3.5-122B-A10B's PP4 EP8 with full
// recompute, tuned for 32 H200s) would leave a 30B model on 64 B200s with most of its memory idle,
// and the planner's best is predicted far faster, so it is recommended and the reason given.
TEST(Recommend, AnotherModelsLayoutGivesWayToTheFasterPlannedOne) {
  RecommendRequest r = fixture().request("Qwen3-30B-A3B", "B200", 64);
  Problems problems;
  std::optional<Recommendation> kept = recommend_recipe(
      r, fixture().candidates, *fixture().rules, fixture().speed, MemoryOptions{}, problems, 100);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->match, RecipeMatch::kSameFamily);
  EXPECT_FALSE(kept->resized_by_search);  // an error of 10,000% leaves the recipe's layout
  EXPECT_EQ(kept->layout.label, "TP1 PP4 EP8 DP16");
  EXPECT_TRUE(kept->layout_reason.empty());

  std::optional<Recommendation> planned = recommend_recipe(
      r, fixture().candidates, *fixture().rules, fixture().speed, MemoryOptions{}, problems, 0.12);
  ASSERT_TRUE(planned);
  EXPECT_TRUE(planned->resized_by_search);
  EXPECT_GT(planned->prediction.speed.tokens_per_s_per_gpu,
            1.12 * kept->prediction.speed.tokens_per_s_per_gpu);
  EXPECT_NE(planned->layout_reason.find("TP1 PP4 EP8 DP16 full:uniform:2"), std::string::npos)
      << planned->layout_reason;
  EXPECT_NE(planned->layout_reason.find("12.0% error"), std::string::npos)
      << planned->layout_reason;
  // The lead is stated on the same basis as the error it is compared with: best over kept.
  const double lead =
      planned->prediction.speed.tokens_per_s_per_gpu / kept->prediction.speed.tokens_per_s_per_gpu -
      1;
  EXPECT_NE(planned->layout_reason.find(fmt::format("predicted {:.1f}% faster", 100 * lead)),
            std::string::npos)
      << planned->layout_reason;
  for (const ResizeCheck& c : planned->checks) EXPECT_TRUE(c.passed) << c.rule << ": " << c.detail;
  for (const SettingOverride& o : planned->overrides) {
    if (o.setting != "model") {
      EXPECT_NE(o.argument_class, "convergence") << o.setting;
    }
  }
}

// Measured beats predicted: on the recipe's own model and GPU type its layout stays, however much
// faster the planner thinks another is.
TEST(Recommend, TheMeasuredPairKeepsItsLayoutWhateverThePlannerPredicts) {
  Problems problems;
  std::optional<Recommendation> rec =
      recommend_recipe(fixture().request("gpt-oss-20b", "H200", 16), fixture().candidates,
                       *fixture().rules, fixture().speed, MemoryOptions{}, problems, 0);
  ASSERT_TRUE(rec);
  EXPECT_FALSE(rec->resized_by_search);
  EXPECT_EQ(rec->layout.label, "TP1 PP2 EP4 DP8");
}

TEST(Recommend, LongerRowsRaiseContextParallelAndChangeConvergence) {
  RecommendRequest r = fixture().request("gpt-oss-20b", "H200", 8);
  r.workload.row_tokens = 32768;
  Recommendation rec = fixture().recommend(r);
  const SettingOverride* seq = find(rec, "seq_length");
  ASSERT_TRUE(seq);
  EXPECT_EQ(seq->argument_class, "convergence");
  EXPECT_EQ(seq->to, "32768");
  if (!rec.resized_by_search) {
    EXPECT_EQ(rec.layout.cp, 4);  // 32,768 / 8,192 tokens per GPU
  }
  bool warned = false;
  for (const std::string& a : rec.advice) warned |= a.find("new experiment") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(Recommend, AModelOutsideTheCatalogStartsFromItsFamilyOrNearestSize) {
  Problems problems;
  std::optional<ModelShape> qwen3 = model_shape_from_file(
      testing::source_dir() + "/tests/fixtures/configs/qwen3-30b-a3b.json", "", problems);
  ASSERT_TRUE(qwen3);
  RecommendRequest r = fixture().request("gpt-oss-20b", "H200", 8);
  r.model_name = "qwen3-30b-a3b";
  r.family = "";
  r.model = *qwen3;
  Recommendation rec = fixture().recommend(r);
  EXPECT_EQ(rec.match, RecipeMatch::kSameFamily);  // qwen3_moe -> Qwen
  EXPECT_EQ(rec.base->recipe.model, "Qwen3.5-122B-A10B");
  const SettingOverride* model = find(rec, "model");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->argument_class, "convergence");
  for (const ResizeCheck& c : rec.checks) EXPECT_TRUE(c.passed) << c.rule << ": " << c.detail;

  std::optional<ModelShape> llama = model_shape_from_file(
      testing::source_dir() + "/tests/fixtures/configs/llama-3.1-8b.json", "", problems);
  ASSERT_TRUE(llama);
  r.model_name = "llama-3.1-8b";
  r.model = *llama;
  rec = fixture().recommend(r);
  EXPECT_EQ(rec.match, RecipeMatch::kNearestSize);
  EXPECT_EQ(rec.layout.ep, 1);  // dense: no expert parallelism
}

}  // namespace
}  // namespace openrecipes
