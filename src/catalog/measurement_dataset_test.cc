#include "catalog/measurement_dataset.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;
using testing::describe;
using testing::has_rule;

// `text` with the first `from` replaced by `to`; fails the test when `from` is absent.
std::string replace_first(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A catalog root holding only the dataset (with its model configs) and its schemas, with the rows
// and models given.
fs::path dataset_copy(const std::string& name, const std::string& rows, const std::string& models) {
  fs::path dir = testing::fresh_dir(name);
  fs::create_directories(dir / "data" / "measurements");
  fs::create_directories(dir / "schema");
  for (const char* schema : {"measurements.schema.yaml", "measurement-models.schema.yaml"}) {
    fs::copy_file(fs::path(testing::source_dir()) / "schema" / schema, dir / "schema" / schema);
  }
  std::ofstream(dir / kMeasurementRowsFile) << rows;
  std::ofstream(dir / kMeasurementModelsFile) << models;
  fs::copy(fs::path(testing::source_dir()) / "models", dir / "models", fs::copy_options::recursive);
  return dir;
}

std::string bundled_rows() { return testing::read_source_file(kMeasurementRowsFile); }
std::string bundled_models() { return testing::read_source_file(kMeasurementModelsFile); }

// The problems of loading the dataset with `rows` and `models` against the bundled GPU types.
Problems load_problems(const std::string& rows, const std::string& models = bundled_models()) {
  // One folder per test: ctest runs the tests of this file in parallel processes.
  std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::path dir = dataset_copy("measurement_dataset_" + test, rows, models);
  Problems problems;
  EXPECT_FALSE(load_measurement_dataset(dir, testing::bundled_catalog().catalog.gpus, problems));
  return problems;
}

// Every model with a config is one of the catalog's models too (the site lists its published
// runs on the model's pages); the check runs when the catalog's models are given.
TEST(MeasurementDataset, AModelWithAConfigMustBeACatalogModel) {
  const Catalog& catalog = testing::bundled_catalog().catalog;
  Problems problems;
  EXPECT_TRUE(
      load_measurement_dataset(testing::source_dir(), catalog.gpus, problems, &catalog.models))
      << describe(problems);
  std::vector<Model> without_llama;
  for (const Model& m : catalog.models)
    if (m.slug != "llama3-70b") without_llama.push_back(m);
  EXPECT_FALSE(
      load_measurement_dataset(testing::source_dir(), catalog.gpus, problems, &without_llama));
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].rule, "measurements.catalog_model");
  EXPECT_EQ(problems[0].field, "models[1].slug");
  EXPECT_EQ(problems[0].expected, "a models.yaml entry with slug llama3-70b");
  EXPECT_EQ(problems[0].position.line,
            testing::line_containing(kMeasurementModelsFile, "slug: llama3-70b"));
}

TEST(MeasurementDataset, TheCommittedDatasetLoadsWithEveryRow) {
  Problems problems;
  std::optional<MeasurementDataset> dataset = load_measurement_dataset(
      testing::source_dir(), testing::bundled_catalog().catalog.gpus, problems);
  ASSERT_TRUE(dataset) << describe(problems);
  EXPECT_EQ(dataset->rows.size(), 293u);
  EXPECT_EQ(dataset->models.size(), 13u);
  const PublishedMeasurement& first = dataset->rows.front();
  EXPECT_EQ(first.release, "26.08");
  EXPECT_EQ(first.model, "deepseek-v3");
  EXPECT_EQ(first.gpu, "GB300");
  EXPECT_EQ(first.vpp, 8);
  EXPECT_EQ(first.etp, std::nullopt);
  EXPECT_EQ(first.routing, "forced_balanced");
  EXPECT_EQ(first.source.line, 45);
  EXPECT_EQ(first.source.commit, "067f987df03b8355b03192d88d70f1709fedf51a");
  int stated_ga = 0, mismatched = 0;
  for (const PublishedMeasurement& m : dataset->rows) {
    if (m.ga) ++stated_ga;
    if (m.ga_mismatch) ++mismatched;
  }
  EXPECT_EQ(stated_ga, 60);
  EXPECT_EQ(mismatched, 3);
}

TEST(MeasurementDataset, EachRowsPositionAndSourceLineArePointedAt) {
  Problems problems =
      load_problems(replace_first(bundled_rows(), "    gpus: 256\n", "    gpus: 255\n"));
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].rule, "measurements.dp");
  EXPECT_EQ(problems[0].field, "rows[0].gpus");
  EXPECT_EQ(problems[0].position.line, testing::line_containing(kMeasurementRowsFile, "gpus: 256"));
}

TEST(MeasurementDataset, MbsTimesDpMustDivideGbs) {
  Problems problems =
      load_problems(replace_first(bundled_rows(), "    gbs: 4096\n", "    gbs: 4095\n"));
  EXPECT_TRUE(has_rule(problems, "measurements.batch")) << describe(problems);
}

TEST(MeasurementDataset, AStatedGaMustFollowFromTheLayoutOrBeMarked) {
  Problems wrong = load_problems(replace_first(bundled_rows(), "    ga: 8\n", "    ga: 4\n"));
  EXPECT_TRUE(has_rule(wrong, "measurements.ga")) << describe(wrong);
  Problems unmarked = load_problems(replace_first(bundled_rows(), "    ga_mismatch: true\n", ""));
  EXPECT_TRUE(has_rule(unmarked, "measurements.ga")) << describe(unmarked);
  Problems marked = load_problems(
      replace_first(bundled_rows(), "    ga: 8\n", "    ga: 8\n    ga_mismatch: true\n"));
  EXPECT_TRUE(has_rule(marked, "measurements.ga")) << describe(marked);
}

TEST(MeasurementDataset, AVirtualPipelineNeedsPipelineStages) {
  Problems problems =
      load_problems(replace_first(bundled_rows(), "    pp: 1\n    cp: 1\n    vpp: null\n",
                                  "    pp: 1\n    cp: 1\n    vpp: 2\n"));
  EXPECT_TRUE(has_rule(problems, "measurements.vpp")) << describe(problems);
}

TEST(MeasurementDataset, TheGpuTypeMustBeInGpusYamlAndMatchTheSystem) {
  Problems unknown =
      load_problems(replace_first(bundled_rows(), "    gpu: GB300\n", "    gpu: GB301\n"));
  EXPECT_TRUE(has_rule(unknown, "measurements.gpu")) << describe(unknown);
  Problems other =
      load_problems(replace_first(bundled_rows(), "    gpu: GB300\n", "    gpu: GB200\n"));
  EXPECT_TRUE(has_rule(other, "measurements.gpu")) << describe(other);
}

TEST(MeasurementDataset, ThePrecisionMustMatchTheWrittenOne) {
  Problems problems = load_problems(
      replace_first(bundled_rows(), "    precision: mxfp8\n", "    precision: nvfp4\n"));
  EXPECT_TRUE(has_rule(problems, "measurements.precision")) << describe(problems);
  Problems unstated = load_problems(replace_first(bundled_rows(), "    precision_stated: true\n",
                                                  "    precision_stated: false\n"));
  EXPECT_TRUE(has_rule(unstated, "measurements.precision")) << describe(unstated);
}

TEST(MeasurementDataset, TheModelMustBeListedAndItsRoutingMatchItsKind) {
  Problems unknown = load_problems(
      replace_first(bundled_rows(), "    model: deepseek-v3\n", "    model: deepseek-v9\n"));
  EXPECT_TRUE(has_rule(unknown, "measurements.model")) << describe(unknown);
  Problems routing = load_problems(
      replace_first(bundled_rows(), "    routing: forced_balanced\n", "    routing: null\n"));
  EXPECT_TRUE(has_rule(routing, "measurements.routing")) << describe(routing);
}

TEST(MeasurementDataset, TwoRowsWithTheSameSettingsAreRefused) {
  std::string rows = bundled_rows();
  std::size_t first = rows.find("  - release:");
  std::size_t second = rows.find("  - release:", first + 1);
  rows.insert(second, rows.substr(first, second - first));
  Problems problems = load_problems(rows);
  EXPECT_TRUE(has_rule(problems, "measurements.unique")) << describe(problems);
}

TEST(MeasurementDataset, AListedConfigMustExistWithItsSource) {
  Problems missing =
      load_problems(bundled_rows(), replace_first(bundled_models(), "    config: null\n",
                                                  "    config: models/llama3-8b/config.json\n"));
  EXPECT_TRUE(has_rule(missing, "measurements.config")) << describe(missing);
  Problems elsewhere = load_problems(
      bundled_rows(),
      replace_first(bundled_models(), "    config: null\n", "    config: other/config.json\n"));
  EXPECT_TRUE(has_rule(elsewhere, "measurements.config")) << describe(elsewhere);
}

// run_settings: a row takes the first entry every stated key of which it matches (GPU type,
// precision, GBS, MBS and layout); the committed ones are read with their sources.
TEST(MeasurementDataset, RunSettingsApplyToTheRowsTheyMatch) {
  Problems problems;
  std::optional<MeasurementDataset> dataset = load_measurement_dataset(
      testing::source_dir(), testing::bundled_catalog().catalog.gpus, problems);
  ASSERT_TRUE(dataset) << describe(problems);
  const MeasurementModel* deepseek = dataset->find_model("deepseek-v3");
  ASSERT_NE(deepseek, nullptr);
  ASSERT_FALSE(deepseek->run_settings.empty());
  EXPECT_EQ(deepseek->run_settings[0].source_commit, "042641823051ce167c52b0ae289941a227c11535");
  // The first row: DeepSeek-V3 26.08 on 256 GB300, MXFP8, MBS 1, TP1 PP2 VPP8 EP32, which
  // DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_FP8_MX_V2 runs with HybridEP and the A2A/1F1B overlap.
  PublishedMeasurement row = dataset->rows.front();
  const PublishedRunSettings* settings = deepseek->settings_for(row);
  ASSERT_NE(settings, nullptr);
  EXPECT_EQ(settings->dispatcher, "flex");
  EXPECT_TRUE(settings->ep_a2a_overlap);
  EXPECT_FALSE(settings->shared_expert_overlap);
  // MBS 2 on the same layout is the FP8 (current scaling) config's: no overlap.
  row.mbs = 2;
  settings = deepseek->settings_for(row);
  ASSERT_NE(settings, nullptr);
  EXPECT_FALSE(settings->ep_a2a_overlap);
  // A layout no config of that commit runs keeps the defaults.
  row.pp = 16, row.vpp = std::nullopt;
  EXPECT_EQ(deepseek->settings_for(row), nullptr);
  // A dense model has no run settings.
  EXPECT_TRUE(dataset->find_model("llama3-70b")->run_settings.empty());
}

TEST(MeasurementDataset, EveryModelWithAConfigStatesItsGradientDtypeWithItsSource) {
  // Each performance script sets grad_reduce_in_fp32 = False for all its runs; models.yaml says
  // so with the file, commit and function read.
  Problems problems;
  std::optional<MeasurementDataset> dataset = load_measurement_dataset(
      testing::source_dir(), testing::bundled_catalog().catalog.gpus, problems);
  ASSERT_TRUE(dataset) << describe(problems);
  for (const MeasurementModel& m : dataset->models) {
    if (!m.config) continue;
    EXPECT_FALSE(m.grad_reduce_in_fp32) << m.slug;
    EXPECT_EQ(m.grad_reduce_source_file.rfind("scripts/performance/configs/", 0), 0u) << m.slug;
    EXPECT_EQ(m.grad_reduce_source_commit.size(), 40u) << m.slug;
    EXPECT_EQ(m.grad_reduce_source_configs.size(), 1u) << m.slug;
  }
  EXPECT_EQ(dataset->find_model("deepseek-v3")->grad_reduce_source_configs.front(),
            "set_deepseek_v3_common_configs");
  // Absent, the Megatron-Bridge presets' FP32 stands; a value without its source is refused.
  MeasurementModel defaults;
  EXPECT_TRUE(defaults.grad_reduce_in_fp32);
  Problems unsourced = load_problems(
      bundled_rows(),
      replace_first(
          bundled_models(),
          "      source: {file: scripts/performance/configs/llama/llama3_llm_pretrain.py, "
          "commit: \"55387ccb4669feb512953918292bc4ab9830fb66\", configs: "
          "[\"set_llama3_common_configs\"]}\n",
          ""));
  EXPECT_TRUE(has_rule(unsourced, "schema")) << describe(unsourced);
}

TEST(MeasurementDataset, RunSettingsNameKnownGpuTypesOfMoeModels) {
  Problems unknown_gpu = load_problems(
      bundled_rows(),
      replace_first(bundled_models(), "      - gpus: [GB300]\n", "      - gpus: [GB301]\n"));
  ASSERT_TRUE(has_rule(unknown_gpu, "measurements.run_settings")) << describe(unknown_gpu);
  EXPECT_EQ(unknown_gpu[0].field, "models[3].run_settings[0].gpus[0]");
  EXPECT_EQ(unknown_gpu[0].found, "GB301");
  Problems dense = load_problems(
      bundled_rows(),
      replace_first(bundled_models(), "    config: models/llama3-8b/config.json\n",
                    "    config: models/llama3-8b/config.json\n    run_settings:\n"
                    "      - dispatcher: flex\n        shared_expert_overlap: false\n"
                    "        ep_a2a_overlap: false\n        source: {file: f.py, commit: "
                    "\"042641823051ce167c52b0ae289941a227c11535\", configs: [X]}\n"));
  EXPECT_TRUE(has_rule(dense, "measurements.run_settings")) << describe(dense);
  Problems bad_dispatcher =
      load_problems(bundled_rows(), replace_first(bundled_models(), "        dispatcher: flex\n",
                                                  "        dispatcher: deepep\n"));
  EXPECT_TRUE(has_rule(bad_dispatcher, "schema")) << describe(bad_dispatcher);
  // The flex dispatcher names its backend; alltoall names none.
  Problems no_backend = load_problems(
      bundled_rows(), replace_first(bundled_models(), "        flex_backend: hybridep\n", ""));
  ASSERT_TRUE(has_rule(no_backend, "measurements.run_settings")) << describe(no_backend);
  EXPECT_EQ(no_backend[0].field, "models[3].run_settings[0].flex_backend");
  Problems stray_backend =
      load_problems(bundled_rows(),
                    replace_first(bundled_models(), "        dispatcher: alltoall\n",
                                  "        dispatcher: alltoall\n        flex_backend: deepep\n"));
  EXPECT_TRUE(has_rule(stray_backend, "measurements.run_settings")) << describe(stray_backend);
}

TEST(MeasurementDataset, TheSchemaRejectsAnUnknownField) {
  Problems problems =
      load_problems(replace_first(bundled_rows(), "    tp: 1\n", "    tp: 1\n    dp: 4\n"));
  EXPECT_TRUE(has_rule(problems, "schema")) << describe(problems);
}

}  // namespace
}  // namespace openrecipes
