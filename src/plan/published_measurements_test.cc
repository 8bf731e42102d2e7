#include "plan/published_measurements.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "layout/layout_rules.h"
#include "plan/layout_plan.h"
#include "plan/memory_model.h"
#include "test_support.h"

namespace openrecipes {
namespace {

using testing::describe;

const std::vector<Gpu>& bundled_gpus() { return testing::bundled_catalog().catalog.gpus; }

TEST(PublishedLayouts, EveryBundledRowConvertsOrIsLeftOutWithAReason) {
  Problems problems;
  std::optional<MeasurementDataset> dataset =
      load_measurement_dataset(testing::source_dir(), bundled_gpus(), problems);
  ASSERT_TRUE(dataset) << describe(problems);
  PublishedLayouts published = published_layouts(testing::source_dir(), *dataset, bundled_gpus());
  EXPECT_EQ(published.layouts.size() + published.excluded.size(), dataset->rows.size());
  std::map<std::string, int> by_rule;
  for (const PublishedExclusion& e : published.excluded) {
    EXPECT_FALSE(e.reason.empty()) << e.source;
    ++by_rule[e.rule];
  }
  // Models without a config (data/measurements/models.yaml says why): DeepSeek-V4 Flash,
  // Qwen3-235B-A22B, Kimi K2 and the Nemotron models but Nemotron 3 Nano.
  EXPECT_EQ(by_rule["published.lora"], 5);
  EXPECT_EQ(by_rule["published.fsdp"], 14);
  EXPECT_EQ(by_rule["published.no_config"], 72);
  // 26.06.01's GPT-OSS 120B on GB300 and GB200: the release names cudnn-frontend issue 256.
  EXPECT_EQ(by_rule["published.known_issue"], 2);
  // 25.09's DeepSeek-V3 on 256 GB200 at PP8 x EP64 needs 512 GPUs: the table's own misprint.
  EXPECT_EQ(by_rule["mesh.expert_dp"], 1);
  // 26.02.01's Llama 3 70B on 64 GB300 with TP1 PP1 and no FSDP: 70B weights with their
  // gradients and optimizer state cannot fit 288 GB; the table's FSDP column says 0.
  EXPECT_EQ(by_rule["published.memory"], 1);
  EXPECT_EQ(published.layouts.size(), 198u);
  // Every row the planner uses is a layout Megatron-LM can run (its placement chosen when the
  // table's PP x VPP does not divide the layers) and one the memory model predicts to fit in the
  // GPU's whole memory, or to miss it by at most the planner's 10% headroom (the run did fit: the
  // model's own error). The rows that need that tolerance are counted, to see them change.
  MemoryOptions whole_gpu;
  whole_gpu.headroom_fraction = 0;
  std::vector<std::string> within_tolerance;
  for (const MeasuredLayout& m : published.layouts) {
    EXPECT_TRUE(check_layout(m.model, m.cluster, m.workload, m.layout).empty()) << m.source;
    MemoryEstimate memory = estimate_memory(m.model, m.cluster, m.workload, m.layout, whole_gpu);
    EXPECT_LE(memory.memory_bytes, 1.1 * m.cluster.gpu.memory_gb * 1e9) << m.source;
    if (!memory.fits) within_tolerance.push_back(m.name);
  }
  // With the BF16 gradients Megatron-Bridge's performance scripts run (grad_reduce_in_fp32 off,
  // models.yaml), only DeepSeek-V3 on 256 GB200 in FP8 (25.09, recomputing the dense MLPs) needs
  // it; with FP32 gradients four MXFP8 releases on GB300 at MBS 2 did too.
  EXPECT_EQ(within_tolerance.size(), 1u) << ::testing::PrintToString(within_tolerance);
  for (const std::string& name : within_tolerance)
    EXPECT_EQ(name.rfind("DeepSeekV3 ", 0), 0u) << name;
  // A stated recompute is the run's (models.yaml's run_settings, where an entry matches the row,
  // Megatron-Bridge's DEEPSEEK_V3_PRETRAIN_CONFIG_H100_*: recompute_modules ["mla_up_proj",
  // "mlp"]), not a choice; 26.04.01's DeepSeek-V3 on 256 B200 at PP8 VPP2 EP32 with the A2A/1F1B
  // overlap fits with its config's mla_up_proj and mlp (it was left out at 212 GB against 180 GB
  // with core_attn alone).
  int h100 = 0, b200 = 0;
  for (const MeasuredLayout& m : published.layouts) {
    if (m.name.rfind("DeepSeekV3 ", 0) != 0) continue;
    if (m.cluster.gpu.type == "H100") {
      ++h100;
      EXPECT_TRUE(m.recompute_stated) << m.name;
      ASSERT_TRUE(m.layout.recompute) << m.name;
      EXPECT_EQ(m.layout.recompute->modules, (std::vector<std::string>{"mla_up_proj", "mlp"}));
    }
    if (m.cluster.gpu.type == "B200" && m.layout.pp == 8 && m.layout.vpp == 2) ++b200;
  }
  EXPECT_EQ(h100, 2);
  EXPECT_EQ(b200, 1);
  EXPECT_EQ(published.layouts.front().source,
            "docs/performance-summary.md@067f987df03b8355b03192d88d70f1709fedf51a 26.08 NeMo "
            "Container / Pre-Training Performance / Model: DeepSeekV3 row 1");
}

// With the catalog's models, a published row's model carries the catalog's name for its slug,
// so the calibration, the bands and the gap to the best measured see one model, not two.
TEST(PublishedLayouts, RowsTakeTheCatalogsModelName) {
  Problems problems;
  std::optional<MeasurementDataset> dataset =
      load_measurement_dataset(testing::source_dir(), bundled_gpus(), problems);
  ASSERT_TRUE(dataset) << describe(problems);
  const Catalog& catalog = testing::bundled_catalog().catalog;
  PublishedLayouts named =
      published_layouts(testing::source_dir(), *dataset, bundled_gpus(), &catalog.models);
  PublishedLayouts by_slug = published_layouts(testing::source_dir(), *dataset, bundled_gpus());
  ASSERT_EQ(named.layouts.size(), by_slug.layouts.size());
  std::set<std::string> names;
  for (const MeasuredLayout& m : named.layouts) names.insert(m.model.name);
  EXPECT_TRUE(names.count("Llama-3-70B"));
  EXPECT_TRUE(names.count("DeepSeek-V3"));
  EXPECT_FALSE(names.count("llama3-70b"));
  for (const std::string& name : names) EXPECT_NE(catalog.find_model(name), nullptr) << name;
  EXPECT_EQ(by_slug.layouts.front().model.name, "deepseek-v3");
}

// A row of a made-up table for the model `slug` on 8 H200s (gpt-oss-20b at CP2 x EP4 needs more
// than an H100 holds).
PublishedMeasurement row(const std::string& slug) {
  PublishedMeasurement m;
  m.release = "26.06";
  m.task = "pretraining";
  m.model = slug;
  m.model_as_written = "gpt-oss-20b";
  m.system = "DGX-H200";
  m.gpu = "H200";
  m.gpus = 8;
  m.precision_as_written = "FP8";
  m.precision = "fp8_blockwise";
  m.gbs = 128;
  m.mbs = 2;
  m.seq_length = 4096;
  m.tp = 1;
  m.pp = 1;
  m.cp = 2;
  m.ep = 4;
  m.routing = "forced_balanced";
  m.tokens_per_s_per_gpu = 1000;
  m.source = {"docs/x.md", "0123", "26.06 / Pre-Training / Model: X", 3, 40};
  return m;
}

// A root whose models/gpt-oss-20b/config.json is the catalog's real one.
std::string gpt_oss_root() {
  static const std::string root = [] {
    std::string dir = testing::fresh_dir("published_measurements_gpt_oss");
    std::filesystem::path models = std::filesystem::path(dir) / "models";
    std::filesystem::create_directories(models / "gpt-oss-20b");
    std::filesystem::copy_file(
        std::filesystem::path(testing::source_dir()) / "models" / "gpt-oss-20b" / "config.json",
        models / "gpt-oss-20b" / "config.json");
    return dir;
  }();
  return root;
}

// The dataset's conversion on the catalog's real gpt-oss-20b config.json.
MeasurementDataset gpt_oss_dataset(std::vector<PublishedMeasurement> rows) {
  MeasurementDataset dataset;
  MeasurementModel gpt_oss;
  gpt_oss.slug = "gpt-oss-20b";
  gpt_oss.names = {"gpt-oss-20b"};
  gpt_oss.kind = "moe";
  gpt_oss.hf_repo = "openai/gpt-oss-20b";
  gpt_oss.config = "models/gpt-oss-20b/config.json";
  dataset.models.push_back(gpt_oss);
  MeasurementModel no_config;
  no_config.slug = "no-config";
  no_config.names = {"X"};
  no_config.kind = "dense";
  no_config.config_reason = "none was found";
  dataset.models.push_back(no_config);
  dataset.rows = std::move(rows);
  return dataset;
}

TEST(PublishedLayouts, ARowBecomesAMeasuredLayoutWithItsSource) {
  MeasurementDataset dataset = gpt_oss_dataset({row("gpt-oss-20b")});
  PublishedLayouts published = published_layouts(gpt_oss_root(), dataset, bundled_gpus());
  ASSERT_EQ(published.layouts.size(), 1u)
      << (published.excluded.empty() ? "" : published.excluded[0].reason);
  const MeasuredLayout& m = published.layouts[0];
  EXPECT_TRUE(m.published);
  EXPECT_EQ(m.source, "docs/x.md@0123 26.06 / Pre-Training / Model: X row 3");
  EXPECT_EQ(m.model.layers, 24);
  EXPECT_EQ(m.cluster.gpus, 8);
  EXPECT_EQ(m.cluster.per_node, 8);
  EXPECT_EQ(m.cluster.gpu.nvlink_domain, 8);
  EXPECT_EQ(m.workload.precision, Precision::kFp8);
  EXPECT_TRUE(m.workload.forced_balanced_routing);
  EXPECT_EQ(m.workload.row_tokens, 4096);
  EXPECT_EQ(m.workload.global_batch, 128);
  EXPECT_EQ(m.layout.dp, 4);
  EXPECT_EQ(m.layout.cp, 2);
  EXPECT_EQ(m.layout.ep, 4);
  EXPECT_EQ(m.layout.etp, 1);
  EXPECT_EQ(m.layout.vpp, 1);
  EXPECT_EQ(m.layout.rows_per_microbatch, 2);
  EXPECT_EQ(m.layout.max_tokens_per_gpu, 2 * 4096 / 2);
  EXPECT_FALSE(m.layout.sequence_parallel);
  EXPECT_EQ(m.layout.dispatcher, "alltoall");
  EXPECT_DOUBLE_EQ(m.tokens_per_s_per_gpu, 1000);
  // The overlaps Megatron-Bridge's performance runs switch on: the shared-expert overlap; TP
  // overlap only with TP > 1.
  EXPECT_TRUE(m.workload.shared_expert_overlap);
  EXPECT_FALSE(m.workload.tp_comm_overlap);
  // The model states no gradient dtype here, so FP32 stands; models.yaml's BF16 is taken.
  EXPECT_TRUE(m.workload.grad_reduce_in_fp32);
  dataset.models[0].grad_reduce_in_fp32 = false;
  PublishedLayouts bf16 = published_layouts(gpt_oss_root(), dataset, bundled_gpus());
  ASSERT_EQ(bf16.layouts.size(), 1u);
  EXPECT_FALSE(bf16.layouts[0].workload.grad_reduce_in_fp32);
}

// TP communication overlap, as Megatron-Bridge's performance scripts set it: on with TP > 1,
// except for NVFP4 runs.
TEST(PublishedLayouts, TpOverlapIsOnWithTpExceptForNvfp4) {
  PublishedMeasurement tp2 = row("gpt-oss-20b");
  tp2.tp = 2, tp2.cp = 1;
  PublishedMeasurement tp2_nvfp4 = tp2;
  tp2_nvfp4.precision = "nvfp4", tp2_nvfp4.gpu = "B200", tp2_nvfp4.system = "DGX-B200";
  tp2_nvfp4.source.row = 4;
  PublishedLayouts published =
      published_layouts(gpt_oss_root(), gpt_oss_dataset({tp2, tp2_nvfp4}), bundled_gpus());
  ASSERT_EQ(published.layouts.size(), 2u)
      << (published.excluded.empty() ? "" : published.excluded[0].reason);
  EXPECT_TRUE(published.layouts[0].workload.tp_comm_overlap);
  EXPECT_FALSE(published.layouts[1].workload.tp_comm_overlap);
}

// A plan's layout is "measured" only by a run of the same workload: a BF16 plan of the layout an
// FP8 run used, or a plan with natural routing against a forced-balanced run, is a prediction.
TEST(PublishedLayouts, AMeasuredMatchNeedsTheSamePrecisionAndRouting) {
  MeasurementDataset dataset = gpt_oss_dataset({row("gpt-oss-20b")});
  PublishedLayouts published = published_layouts(gpt_oss_root(), dataset, bundled_gpus());
  ASSERT_EQ(published.layouts.size(), 1u);
  const MeasuredLayout& m = published.layouts[0];
  EXPECT_EQ(measured_match(published.layouts, m.model.name, m.cluster, m.workload, m.layout), &m);
  PlanWorkload bf16 = m.workload;
  bf16.precision = Precision::kBf16;
  EXPECT_EQ(measured_match(published.layouts, m.model.name, m.cluster, bf16, m.layout), nullptr);
  PlanWorkload natural = m.workload;
  natural.forced_balanced_routing = false;
  EXPECT_EQ(measured_match(published.layouts, m.model.name, m.cluster, natural, m.layout), nullptr);
}

TEST(PublishedLayouts, RowsItCannotUseAreLeftOutWithTheirRule) {
  PublishedMeasurement lora = row("gpt-oss-20b");
  lora.task = "lora";
  PublishedMeasurement fsdp = row("gpt-oss-20b");
  fsdp.fsdp = 8;
  PublishedMeasurement no_config = row("no-config");
  PublishedMeasurement bad_pp = row("gpt-oss-20b");
  bad_pp.pp = 5;  // 24 layers in 5 stages, 8 GPUs: TP x PP x CP = 10 does not divide them
  PublishedMeasurement bad_tp = row("gpt-oss-20b");
  bad_tp.tp = 16;  // beyond the 8 KV heads and the 8 GPUs of a node
  bad_tp.gpus = 32;
  bad_tp.cp = 1;
  PublishedMeasurement ddp = row("gpt-oss-20b");
  ddp.fsdp = 0;
  PublishedMeasurement regressed = row("gpt-oss-20b");
  regressed.known_issue = "cudnn-frontend issue 256";
  MeasurementDataset dataset =
      gpt_oss_dataset({lora, fsdp, no_config, bad_pp, bad_tp, ddp, regressed});
  PublishedLayouts published = published_layouts(gpt_oss_root(), dataset, bundled_gpus());
  ASSERT_EQ(published.excluded.size(), 6u);
  EXPECT_EQ(published.excluded[0].rule, "published.lora");
  EXPECT_EQ(published.excluded[1].rule, "published.fsdp");
  EXPECT_EQ(published.excluded[2].rule, "published.no_config");
  EXPECT_NE(published.excluded[2].reason.find("none was found"), std::string::npos);
  EXPECT_EQ(published.excluded[3].rule, "mesh.world");
  EXPECT_EQ(published.excluded[3].row, 3u);
  EXPECT_EQ(published.excluded[4].rule.rfind("mesh.", 0), 0u) << published.excluded[4].rule;
  EXPECT_EQ(published.excluded[5].rule, "published.known_issue");
  EXPECT_NE(published.excluded[5].reason.find("cudnn-frontend issue 256"), std::string::npos);
  ASSERT_EQ(published.layouts.size(), 1u);
}

TEST(PublishedLayouts, AConfigTheCounterRejectsIsLeftOut) {
  MeasurementDataset dataset = gpt_oss_dataset({row("gpt-oss-20b")});
  dataset.models[0].config = "models/gpt-oss-20b/no-such-config.json";
  PublishedLayouts published = published_layouts(gpt_oss_root(), dataset, bundled_gpus());
  ASSERT_EQ(published.excluded.size(), 1u);
  EXPECT_EQ(published.excluded[0].rule, "published.model");
}

}  // namespace
}  // namespace openrecipes
