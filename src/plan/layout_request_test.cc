// The layout-argument checks plan, recommend and export share (layout_request.h).
#include "plan/layout_request.h"

#include <gtest/gtest.h>

#include "plan/catalog_measurements.h"
#include "test_support.h"

namespace openrecipes {
namespace {

PlanArguments gpt_oss(int gpus, const std::string& layout) {
  PlanArguments arguments;
  arguments.model = "gpt-oss-20b";
  arguments.gpu = "H200";
  arguments.gpus = gpus;
  arguments.layout.layout = layout;
  return arguments;
}

TEST(LayoutRequest, ResolvesALegalLayout) {
  Problems problems;
  std::optional<PlanRequest> request = resolve_plan_request(testing::bundled_catalog().catalog,
                                                            gpt_oss(16, "TP1 PP2 EP8"), problems);
  ASSERT_TRUE(request) << testing::describe(problems);
  EXPECT_EQ(request->cluster.per_node, 8);
  ASSERT_TRUE(request->layout);
  EXPECT_EQ(request->layout->dispatcher, "alltoall");  // the MoE default
}

TEST(LayoutRequest, RefusesAPartialNode) {
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, gpt_oss(12, "TP1 PP3 EP4"),
                                    problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--gpus");
  EXPECT_EQ(problems[0].rule, "arguments.whole_nodes");
  EXPECT_EQ(problems[0].found, "12");
  EXPECT_NE(problems[0].expected.find("multiple of the 8 GPUs per node"), std::string::npos);
  problems.clear();
  EXPECT_TRUE(
      resolve_plan_request(testing::bundled_catalog().catalog, gpt_oss(4, "TP1 EP4"), problems))
      << testing::describe(problems);  // fewer than a node is allowed
}

TEST(LayoutRequest, RefusesAnUnknownDispatcherAndAWrongDp) {
  PlanArguments arguments = gpt_oss(16, "TP1 PP2 EP8");
  arguments.layout.dispatcher = "broadcast";
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--dispatcher");
  problems.clear();
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog,
                                    gpt_oss(16, "TP1 PP2 EP8 DP4"), problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].rule, "arguments.dp");
  EXPECT_EQ(problems[0].expected, "DP8 or no DP");
}

TEST(LayoutRequest, RunSettingsReachTheWorkloadAndItsRules) {
  PlanArguments arguments = gpt_oss(16, "TP2 PP2 VPP2 EP8");
  arguments.layout.dispatcher = "flex";  // the backend is the flex dispatcher's
  arguments.settings = {true, true, false, "hybridep"};
  Problems problems;
  std::optional<PlanRequest> request =
      resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems);
  ASSERT_TRUE(request) << testing::describe(problems);
  EXPECT_TRUE(request->workload.tp_comm_overlap);
  EXPECT_TRUE(request->workload.shared_expert_overlap);
  EXPECT_FALSE(request->workload.ep_a2a_overlap);
  EXPECT_TRUE(request->workload.hybridep);
  // The shared-expert overlap and the A2A/1F1B overlap exclude each other (Megatron-Core).
  arguments.settings.ep_a2a_overlap = true;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].rule, "mesh.shared_expert_overlap");
  problems.clear();
  arguments.settings.shared_expert_overlap = false;
  request = resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems);
  ASSERT_TRUE(request) << testing::describe(problems);
  EXPECT_TRUE(request->workload.ep_a2a_overlap);
  // The A2A/1F1B overlap needs VPP when pipelined: one problem, under its rule.
  arguments.layout.layout = "TP2 PP2 EP8";
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].rule, "mesh.ep_a2a_overlap");
  // TP communication overlap needs TP > 1 (Megatron-LM would not start).
  problems.clear();
  arguments.layout.layout = "TP1 PP2 VPP2 EP8";
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].rule, "mesh.tp_comm_overlap");
  arguments.layout.layout = "TP2 PP2 VPP2 EP8";
  // An unknown backend is named.
  problems.clear();
  arguments.settings.flex_backend = "nccl";
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--moe-flex-dispatcher-backend");
  EXPECT_EQ(problems[0].found, "nccl");
}

TEST(LayoutRequest, EachBrokenRuleIsOneProblem) {
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, gpt_oss(16, "TP3 PP2 EP5"),
                                    problems));
  ASSERT_GE(problems.size(), 2u);
  EXPECT_TRUE(testing::has_rule(problems, "mesh.tp_heads")) << testing::describe(problems);
  EXPECT_TRUE(testing::has_rule(problems, "mesh.ep")) << testing::describe(problems);
  for (const Problem& p : problems) EXPECT_EQ(p.field, "--layout");
}

TEST(LayoutRequest, UnknownModelAndGpuAreBothNamed) {
  PlanArguments arguments = gpt_oss(8, "");
  arguments.model = "no-such-model";
  arguments.gpu = "Z100";
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 2u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--model");
  EXPECT_NE(problems[0].expected.find("gpt-oss-20b"), std::string::npos);
  EXPECT_EQ(problems[1].field, "--gpu");
  EXPECT_NE(problems[1].expected.find("H200"), std::string::npos);
}

// A catalog of thousands of models names its first few and how many more, not every one.
TEST(LayoutRequest, AnUnknownModelInALargeCatalogNamesAFewModelsAndCountsTheRest) {
  Catalog catalog = testing::bundled_catalog().catalog;
  const std::size_t bundled = catalog.models.size();
  for (int i = 0; i < 1000; ++i) {
    Model copy = catalog.models.front();
    copy.name = copy.slug = "copy-" + std::to_string(i);
    catalog.models.push_back(copy);
  }
  PlanArguments arguments = gpt_oss(8, "");
  arguments.model = "no-such-model";
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(catalog, arguments, problems));
  ASSERT_FALSE(problems.empty());
  const std::string& expected = problems[0].expected;
  EXPECT_NE(expected.find("gpt-oss-20b"), std::string::npos) << expected;
  EXPECT_EQ(expected.find("copy-999"), std::string::npos) << expected;
  EXPECT_NE(expected.find(std::to_string(bundled + 1000 - 12) + " more in models.yaml"),
            std::string::npos)
      << expected;
  EXPECT_LT(expected.size(), 400u);
}

ClusterShape h200(int gpus) {
  return cluster_of(*testing::bundled_catalog().catalog.find_gpu("H200"), gpus);
}

// Qwen3.5-122B-A10B's shape with Qwen3-235B-A22B's 94 layers: a hand-made layer count (there is no
// 94-layer config among the fixtures) on a real model's other sizes.
ModelShape with_94_layers() {
  ModelShape m = testing::bundled_catalog().catalog.find_model("Qwen3.5-122B-A10B")->shape;
  m.layers = 94;
  return m;
}

TEST(LayoutRequest, Pp8Vpp4On94LayersTakesTheBalancedPlacement) {
  LayoutArguments arguments;
  arguments.layout = "TP1 PP8 VPP4 EP16";
  Problems problems;
  bool chosen = false;
  std::optional<Layout> layout =
      resolve_layout(arguments, with_94_layers(), h200(128), PlanWorkload{}, problems, &chosen);
  ASSERT_TRUE(layout) << testing::describe(problems);
  EXPECT_TRUE(chosen);
  EXPECT_TRUE(layout->account_for_embedding_in_pipeline_split);
  EXPECT_TRUE(layout->account_for_loss_in_pipeline_split);
  EXPECT_FALSE(layout->layer_split);
  EXPECT_EQ(layout->pipeline_layout, "");
}

TEST(LayoutRequest, AGivenPlacementIsKeptAndChecked) {
  LayoutArguments arguments;
  arguments.layout = "TP1 PP8 VPP4 EP16";
  arguments.pipeline_layout = "Et*2|(t*3|)*30,ttL";  // 2 + 90 + 2 = 94 on 32 chunks
  Problems problems;
  bool chosen = false;
  std::optional<Layout> layout =
      resolve_layout(arguments, with_94_layers(), h200(128), PlanWorkload{}, problems, &chosen);
  ASSERT_TRUE(layout) << testing::describe(problems);
  EXPECT_FALSE(chosen);
  EXPECT_EQ(layout->pipeline_layout, "Et*2|(t*3|)*30,ttL");
  EXPECT_FALSE(layout->account_for_loss_in_pipeline_split);

  arguments.pipeline_layout = "Et*2|(t*3|)*30,ttL*";  // a syntax error names the flag
  EXPECT_FALSE(resolve_layout(arguments, with_94_layers(), h200(128), PlanWorkload{}, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--pipeline-layout");
  EXPECT_EQ(problems[0].rule, "mesh.pipeline_layout");
  problems.clear();
  arguments.pipeline_layout = "Et*2|(t*3|)*29,ttL";  // 31 chunks: a rule of the layout
  EXPECT_FALSE(resolve_layout(arguments, with_94_layers(), h200(128), PlanWorkload{}, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--layout");
  EXPECT_EQ(problems[0].rule, "mesh.pipeline_layout");
  EXPECT_EQ(problems[0].found, "31 chunks");
  problems.clear();
  arguments.pipeline_layout = "";
  arguments.account_for_embedding = true;  // 95 counted layers over 8 stages
  EXPECT_FALSE(resolve_layout(arguments, with_94_layers(), h200(128), PlanWorkload{}, problems));
  EXPECT_TRUE(testing::has_rule(problems, "mesh.pp")) << testing::describe(problems);
}

TEST(LayoutRequest, AnEvenSplitIsLeftAlone) {
  LayoutArguments arguments;
  arguments.layout = "TP1 PP4 VPP2 EP8";  // Qwen3.5-122B-A10B's 48 layers: 6 a chunk
  Problems problems;
  bool chosen = false;
  ModelShape qwen = testing::bundled_catalog().catalog.find_model("Qwen3.5-122B-A10B")->shape;
  std::optional<Layout> layout =
      resolve_layout(arguments, qwen, h200(32), PlanWorkload{}, problems, &chosen);
  ASSERT_TRUE(layout) << testing::describe(problems);
  EXPECT_FALSE(chosen);
  EXPECT_FALSE(layout->account_for_embedding_in_pipeline_split);
}

TEST(LayoutRequest, AcceptsEveryPrecisionTheGpuHasTensorCoresFor) {
  for (const char* precision : {"bf16", "fp8", "mxfp8", "nvfp4"}) {
    PlanArguments arguments = gpt_oss(8, "TP1 EP8");
    arguments.gpu = "B200";
    arguments.precision = precision;
    Problems problems;
    std::optional<PlanRequest> request =
        resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems);
    ASSERT_TRUE(request) << precision << ": " << testing::describe(problems);
    EXPECT_EQ(precision_name(request->workload.precision), precision);
  }
}

TEST(LayoutRequest, RefusesAPrecisionTheGpuLacksAndAnUnknownOne) {
  PlanArguments arguments = gpt_oss(8, "TP1 EP8");
  arguments.precision = "mxfp8";  // H200 (Hopper): FP8 per tensor or per block, no microscaling
  Problems problems;
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].field, "--precision");
  EXPECT_EQ(problems[0].rule, "arguments.precision");
  EXPECT_NE(problems[0].message.find("H200 has no tensor cores for it"), std::string::npos)
      << problems[0].message;
  EXPECT_NE(problems[0].message.find("peak_mxfp8_dense_flop_per_s"), std::string::npos);
  problems.clear();
  arguments.precision = "fp4";
  EXPECT_FALSE(resolve_plan_request(testing::bundled_catalog().catalog, arguments, problems));
  ASSERT_EQ(problems.size(), 1u) << testing::describe(problems);
  EXPECT_EQ(problems[0].expected, "bf16, fp8, mxfp8 or nvfp4");
  EXPECT_EQ(problems[0].found, "fp4");
}

}  // namespace
}  // namespace openrecipes
